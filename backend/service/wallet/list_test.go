package wallet

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// offCurve is an address no key signs for: a program-derived address.
func offCurve(t *testing.T) string {
	t.Helper()
	pda, _, err := solana.FindProgramAddress([][]byte{[]byte("reclaim")}, solana.SystemProgramID)
	if err != nil {
		t.Fatal(err)
	}
	return pda.String()
}

// TestParseAddresses: the path's wallet is decoded once, as the face
// converts the request: any address for a listing or a stream, a key that
// can sign for a build or a submit; the messages and the param are the
// contract's.
func TestParseAddresses(t *testing.T) {
	t.Parallel()
	pda := offCurve(t)
	cases := []struct {
		name, address string
		parse         func(string) (solana.PublicKey, error)
		want          string // "" when accepted
	}{
		{"listing: a wallet", owner.String(), ParseAddress, ""},
		{"listing: off the curve", pda, ParseAddress, ""},
		{"listing: missing", "", ParseAddress, "address: the wallet address in the path is required"},
		{"listing: not base58", "0OIl", ParseAddress, `address: "0OIl" is not a Solana address (base58 of 32 bytes)`},
		{"listing: 31 bytes", "1111111111111111111111111111111", ParseAddress, `address: "1111111111111111111111111111111" is not a Solana address (base58 of 32 bytes)`},
		{"signer: a wallet", owner.String(), ParseSigner, ""},
		{"signer: off the curve", pda, ParseSigner, `address: "` + pda + `" is not an Ed25519 public key (it is off the curve, like a program-derived address): a wallet must be able to sign`},
		{"signer: missing", "", ParseSigner, "address: the wallet address in the path is required"},
		{"signer: not base58", "nope", ParseSigner, `address: "nope" is not a Solana address (base58 of 32 bytes)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.parse(tc.address)
			if tc.want != "" {
				wantInvalid(t, err, "address", tc.want)
				return
			}
			if err != nil || got.String() != tc.address {
				t.Fatalf("got %s, %v", got, err)
			}
		})
	}
}

// walletListing is a listing in discovery order: three token accounts by
// address, then two items of the other sources by address.
func walletListing() assets.Listing {
	var accounts, others []assets.Item
	for _, l := range []string{"a1", "a2", "a3"} {
		accounts = append(accounts, chainItem(l, assets.TypeEmptyAccount, assets.ActionClose))
	}
	for _, l := range []string{"s1", "s2"} {
		others = append(others, chainItem(l, assets.TypeCNFT, assets.ActionBurn))
	}
	byAddress := func(a, b assets.Item) int { return strings.Compare(a.Address.String(), b.Address.String()) }
	slices.SortFunc(accounts, byAddress)
	slices.SortFunc(others, byAddress)
	counts := map[assets.ItemType]int{}
	for _, t := range assets.ItemTypes() {
		counts[t] = 0
	}
	counts[assets.TypeEmptyAccount], counts[assets.TypeCNFT] = 3, 2
	return assets.Listing{Items: append(accounts, others...), TokenAccounts: 3, Counts: counts}
}

// cursorOf is the cursor of a page ending at the listing's item i.
func cursorOf(l assets.Listing, i int) string { return keyAt(l, i).cursor() }

// TestList: pages of the listing, their cursors and limits, and what fails.
func TestList(t *testing.T) {
	t.Parallel()
	all := walletListing()
	addresses := func(items []assets.Item) []string {
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = it.Address.String()
		}
		return out
	}
	limit := func(n uint32) *uint32 { return &n }
	gone := base64.RawURLEncoding.EncodeToString([]byte("a:" + strings.Repeat("z", 44))) // after every token account
	clusterDown := errors.New("connection refused")
	cases := []struct {
		name  string
		page  Page
		fail  error
		items []assets.Item
		next  string
		param string // the invalid fault's; "" when the listing is answered
		want  string
	}{
		{name: "all", items: all.Items},
		{name: "first page", page: Page{Limit: limit(2)}, items: all.Items[:2], next: cursorOf(all, 1)},
		{name: "next page", page: Page{Limit: limit(2), Cursor: cursorOf(all, 1)}, items: all.Items[2:4], next: cursorOf(all, 3)},
		{name: "across the sources", page: Page{Limit: limit(2), Cursor: cursorOf(all, 2)}, items: all.Items[3:5]},
		{name: "last page exactly", page: Page{Limit: limit(1), Cursor: cursorOf(all, 3)}, items: all.Items[4:]},
		{name: "limit beyond the rest", page: Page{Limit: limit(1000), Cursor: cursorOf(all, 0)}, items: all.Items[1:]},
		{name: "after the end", page: Page{Cursor: cursorOf(all, 4)}, items: []assets.Item{}},
		{name: "after an item that is gone", page: Page{Cursor: gone}, items: all.Items[3:]},
		{name: "cursor not ours", page: Page{Cursor: "eDp5"}, param: "cursor", want: "cursor: is not a cursor this service returned"},
		{name: "cursor before limit", page: Page{Cursor: "!", Limit: limit(0)}, param: "cursor", want: "cursor: …"},
		{name: "cluster down", fail: clusterDown, want: "the Solana cluster did not answer within 1h0m0s or failed; retry shortly"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			f.list = func(ctx context.Context, wallet solana.PublicKey) (assets.Listing, error) {
				dl, ok := ctx.Deadline()
				if wallet != owner || !ok || time.Until(dl) <= time.Hour || rpclimit.From(ctx) == nil {
					t.Errorf("listed %s, deadline %v (want 2h away), limit %v", wallet, dl, rpclimit.From(ctx))
				}
				return all, tc.fail
			}
			got, err := f.service().List(context.Background(), owner, tc.page)
			switch {
			case tc.param != "":
				wantInvalid(t, err, tc.param, tc.want)
				if f.called("List") != 0 {
					t.Error("listed the wallet for a request it refused")
				}
				return
			case tc.fail != nil:
				wantUnavailable(t, err, tc.want)
				if !errors.Is(err, clusterDown) {
					t.Errorf("the cause is lost: %v", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if !slices.Equal(addresses(got.Items), addresses(tc.items)) || got.NextCursor != tc.next {
				t.Errorf("items %v next %q, want %v next %q", addresses(got.Items), got.NextCursor, addresses(tc.items), tc.next)
			}
			if len(got.Counts) != len(assets.ItemTypes()) || got.Counts[assets.TypeEmptyAccount] != 3 || got.Counts[assets.TypeCNFT] != 2 {
				t.Errorf("counts %v, want the whole wallet's", got.Counts)
			}
		})
	}
}

// TestListTimeout: a cluster that does not answer within twice the RPC
// timeout is unavailable, and the message says how long it was given.
func TestListTimeout(t *testing.T) {
	t.Parallel()
	f := newFakes()
	f.list = func(ctx context.Context, _ solana.PublicKey) (assets.Listing, error) {
		<-ctx.Done()
		return assets.Listing{}, ctx.Err()
	}
	_, err := f.service(func(d *Deps) { d.RPCTimeout = time.Millisecond }).List(context.Background(), owner, Page{})
	wantUnavailable(t, err, "did not answer within 1ms")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cause %v", err)
	}
}

// TestParseStream: the wallet and the chunk size of a stream, checked before
// it starts.
func TestParseStream(t *testing.T) {
	t.Parallel()
	size := func(n uint32) *uint32 { return &n }
	cases := []struct {
		name    string
		address string
		size    *uint32
		chunk   int
		param   string
		want    string
	}{
		{name: "default size", address: owner.String(), chunk: assets.DefaultChunkSize},
		{name: "smallest", address: owner.String(), size: size(1), chunk: 1},
		{name: "largest", address: owner.String(), size: size(500), chunk: 500},
		{name: "zero", address: owner.String(), size: size(0), param: "chunkSize", want: "chunkSize: must be from 1 to 500, got 0"},
		{name: "too large", address: owner.String(), size: size(501), param: "chunkSize", want: "chunkSize: must be from 1 to 500, got 501"},
		{name: "off the curve streams", address: offCurve(t), chunk: assets.DefaultChunkSize},
		{name: "bad address before bad size", address: "nope", size: size(0), param: "address", want: `address: "nope" is not a Solana address (base58 of 32 bytes)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseStream(tc.address, tc.size)
			if tc.param != "" {
				wantInvalid(t, err, tc.param, tc.want)
				return
			}
			if err != nil || got.Wallet.String() != tc.address || got.ChunkSize != tc.chunk {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
}

// TestStream: chunks numbered in order with running counts of every type,
// the last one marked; emit's error and a cancelled request end it as they
// are, a discovery that fails is unavailable.
func TestStream(t *testing.T) {
	t.Parallel()
	all := walletListing()
	clientGone := errors.New("client gone")
	discoveryFailed := errors.New("getTokenAccountsByOwner: 502")
	cases := []struct {
		name string
		// discover runs as the Discoverer's Stream, emitting what it finds.
		discover func(ctx context.Context, emit func([]assets.Item, bool) error) error
		emitErr  error
		cancel   bool
		sizes    []int // of the chunks emitted
		err      error // returned as it is
		want     string
	}{
		{name: "chunks", sizes: []int{2, 2, 1}, discover: func(_ context.Context, emit func([]assets.Item, bool) error) error {
			for i := 0; i < len(all.Items); i += 2 {
				end := min(i+2, len(all.Items))
				if err := emit(all.Items[i:end], end == len(all.Items)); err != nil {
					return err
				}
			}
			return nil
		}},
		{name: "empty wallet", sizes: []int{0}, discover: func(_ context.Context, emit func([]assets.Item, bool) error) error {
			return emit([]assets.Item{}, true)
		}},
		{name: "client gone", sizes: []int{2}, emitErr: clientGone, err: clientGone, discover: func(_ context.Context, emit func([]assets.Item, bool) error) error {
			if err := emit(all.Items[:2], false); err != nil {
				return err
			}
			t.Error("discovery went on after emit failed")
			return nil
		}},
		{name: "client gone, wrapped by discovery", sizes: []int{2}, emitErr: clientGone, err: clientGone, discover: func(_ context.Context, emit func([]assets.Item, bool) error) error {
			return errors.Join(errors.New("stopped"), emit(all.Items[:2], false))
		}},
		{name: "request cancelled", cancel: true, err: context.Canceled, discover: func(ctx context.Context, _ func([]assets.Item, bool) error) error {
			<-ctx.Done()
			return errors.New("read tcp: use of closed connection")
		}},
		{name: "discovery fails", sizes: []int{2}, want: "the Solana cluster did not answer within 1h0m0s or failed", discover: func(_ context.Context, emit func([]assets.Item, bool) error) error {
			if err := emit(all.Items[:2], false); err != nil {
				return err
			}
			return discoveryFailed
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			f := newFakes()
			f.stream = func(ctx context.Context, wallet solana.PublicKey, opts assets.StreamOptions, emit func([]assets.Item, bool) error) error {
				if wallet != owner || opts.ChunkSize != 2 || opts.StepTimeout != 2*time.Hour || rpclimit.From(ctx) == nil {
					t.Errorf("streamed %s with %+v, limit %v", wallet, opts, rpclimit.From(ctx))
				}
				return tc.discover(ctx, emit)
			}
			var chunks []Chunk
			err := f.service().Stream(ctx, StreamRequest{Wallet: owner, ChunkSize: 2}, func(c Chunk) error {
				chunks = append(chunks, c)
				return tc.emitErr
			})
			switch {
			case tc.err != nil:
				if err != tc.err {
					t.Fatalf("err = %v, want %v as it is", err, tc.err)
				}
			case tc.want != "":
				wantUnavailable(t, err, tc.want)
			case err != nil:
				t.Fatal(err)
			}
			checkChunks(t, chunks, tc.sizes, tc.err == nil && tc.want == "")
		})
	}
}

// checkChunks checks that chunks have the sizes given, their indexes in
// order, running counts of every type, and (complete) only the last marked.
func checkChunks(t *testing.T, chunks []Chunk, sizes []int, complete bool) {
	t.Helper()
	if len(chunks) != len(sizes) {
		t.Fatalf("%d chunks, want %d", len(chunks), len(sizes))
	}
	running := map[assets.ItemType]uint32{}
	for i, c := range chunks {
		for _, it := range c.Items {
			running[it.Type]++
		}
		last := complete && i == len(chunks)-1
		if c.Index != uint32(i) || len(c.Items) != sizes[i] || c.Last != last || len(c.Counts) != len(assets.ItemTypes()) {
			t.Errorf("chunk %d: index %d, %d items, last %v, counts %v", i, c.Index, len(c.Items), c.Last, c.Counts)
		}
		for _, typ := range assets.ItemTypes() {
			if c.Counts[typ] != running[typ] {
				t.Errorf("chunk %d: counts %v, sent so far %v", i, c.Counts, running)
			}
		}
	}
}
