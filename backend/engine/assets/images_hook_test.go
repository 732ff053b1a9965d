package assets

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// fakeImages sets an image for every item with a metadata URI.
type fakeImages struct{ calls int }

func (f *fakeImages) Fill(_ context.Context, items []Item) {
	f.calls++
	for i := range items {
		if items[i].URI != "" {
			items[i].ImageURI = items[i].URI + "#image"
		}
	}
}

// Images are filled inside the pipeline that List and Stream share, so the
// REST listing and the stream carry the same imageUri.
func TestAssetsImagesFilledInListAndStream(t *testing.T) {
	t.Parallel()
	tok := solana.Token2022ProgramID
	w := newWorld(t)
	m := w.mint(tok, 0, 1, &tokenMetadata{name: "Art", symbol: "ART", uri: "https://example.test/art.json"})
	w.account(tok, tokenRent, acct{mint: m, amount: 1})
	f := &fakeImages{}
	d := NewDiscoverer(w.c.rpc(), nil).WithImages(f)
	l, err := d.List(context.Background(), w.wallet)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].ImageURI != "https://example.test/art.json#image" {
		t.Fatalf("listed %+v", l.Items)
	}
	var streamed []Item
	err = d.Stream(context.Background(), w.wallet, StreamOptions{ChunkSize: 10}, func(chunk []Item, _ bool) error {
		streamed = append(streamed, chunk...)
		return nil
	})
	if err != nil || len(streamed) != 1 || streamed[0].ImageURI != l.Items[0].ImageURI || f.calls != 2 {
		t.Fatalf("streamed %+v %v, fill calls %d", streamed, err, f.calls)
	}
}
