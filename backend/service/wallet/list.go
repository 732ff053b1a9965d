package wallet

import (
	"context"
	"encoding/base64"
	"errors"
	"maps"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// Page asks for part of a listing: at most Limit items (nil: all of them)
// after Cursor (a NextCursor of an earlier page; "": from the start).
type Page struct {
	Limit  *uint32
	Cursor string
}

// Listing is one page of a wallet's items.
type Listing struct {
	// Items in discovery order (token accounts by address, then the other
	// sources' items by address), the same order the stream sends.
	Items []assets.Item
	// Counts cover the whole wallet, every type present, zeros included.
	Counts map[assets.ItemType]int
	// NextCursor resumes after the last item; "" when this page ends the
	// listing.
	NextCursor string
}

// List lists the wallet's items (ParseAddress decodes its address), one
// page of them when p asks.
func (s *Service) List(ctx context.Context, wallet solana.PublicKey, p Page) (Listing, error) {
	after, err := parseCursor(p.Cursor)
	if err != nil {
		return Listing{}, err
	}
	rctx, cancel := context.WithTimeout(s.limited(ctx), s.d.RPCTimeout*2)
	defer cancel()
	all, err := s.d.Discoverer.List(rctx, wallet)
	if err != nil {
		return Listing{}, s.clusterError(err)
	}
	start := 0
	if after != nil {
		for start < len(all.Items) && !after.before(keyAt(all, start)) {
			start++
		}
	}
	out := Listing{Items: all.Items[start:], Counts: all.Counts}
	if p.Limit != nil && len(out.Items) > int(*p.Limit) {
		out.Items = out.Items[:*p.Limit]
		out.NextCursor = keyAt(all, start+len(out.Items)-1).cursor()
	}
	return out, nil
}

// listingKey is an item's place in the listing's order, which is what a
// cursor holds: a page resumes after it even when items were closed or
// added meanwhile.
type listingKey struct {
	source  bool
	address string
}

func keyAt(l assets.Listing, i int) listingKey {
	return listingKey{source: i >= l.TokenAccounts, address: l.Items[i].Address.String()}
}

// before reports whether k comes before o.
func (k listingKey) before(o listingKey) bool {
	if k.source != o.source {
		return !k.source
	}
	return k.address < o.address
}

func (k listingKey) cursor() string {
	group := "a:"
	if k.source {
		group = "s:"
	}
	return base64.RawURLEncoding.EncodeToString([]byte(group + k.address))
}

func parseCursor(s string) (*listingKey, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	group, address, ok := strings.Cut(string(b), ":")
	if err != nil || !ok || (group != "a" && group != "s") || address == "" {
		return nil, invalidf("cursor", "is not a cursor this service returned")
	}
	return &listingKey{source: group == "s", address: address}, nil
}

// Chunk is one message of a wallet stream.
type Chunk struct {
	Index uint32
	Items []assets.Item
	// Early are early items (assets.StreamOptions.Early): the first chunks
	// carry them, and no Items.
	Early []assets.Item
	// Counts run over the items sent so far, every type present.
	Counts map[assets.ItemType]uint32
	// Last is set on the final chunk.
	Last bool
}

// StreamRequest is a stream's wallet and the most items per chunk.
type StreamRequest struct {
	Wallet    solana.PublicKey
	ChunkSize int
}

// ParseStream checks a stream request before it starts, as the face
// converts it: the wallet's address and the chunk size (nil: the default).
func ParseStream(wallet string, chunkSize *uint32) (StreamRequest, error) {
	key, err := ParseAddress(wallet)
	if err != nil {
		return StreamRequest{}, err
	}
	size, err := ChunkSize(chunkSize)
	if err != nil {
		return StreamRequest{}, err
	}
	return StreamRequest{Wallet: key, ChunkSize: size}, nil
}

// Stream discovers the wallet and emits its chunks of at most
// req.ChunkSize items as they are found; their items concatenated are
// List's. The first chunks carry the early items instead, as soon as the
// token accounts are listed (one round trip to the cluster). An error of emit is returned as it is (the client is gone); a
// discovery that fails is unavailable.
func (s *Service) Stream(ctx context.Context, req StreamRequest, emit func(Chunk) error) error {
	counts := make(map[assets.ItemType]uint32, len(assets.ItemTypes()))
	for _, t := range assets.ItemTypes() {
		counts[t] = 0
	}
	var index uint32
	var emitErr error
	early := func(items []assets.Item) error {
		emitErr = emit(Chunk{Index: index, Early: items, Counts: maps.Clone(counts)})
		index++
		return emitErr
	}
	err := s.d.Discoverer.Stream(s.limited(ctx), req.Wallet, assets.StreamOptions{ChunkSize: req.ChunkSize, StepTimeout: 2 * s.d.RPCTimeout, Early: early},
		func(items []assets.Item, last bool) error {
			for _, it := range items {
				counts[it.Type]++
			}
			emitErr = emit(Chunk{Index: index, Items: items, Counts: maps.Clone(counts), Last: last})
			index++
			return emitErr
		})
	switch {
	case err == nil:
		return nil
	case emitErr != nil && errors.Is(err, emitErr):
		return emitErr
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return s.clusterError(err)
}
