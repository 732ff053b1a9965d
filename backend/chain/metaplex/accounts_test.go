package metaplex_test

import (
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/mplref"
)

func borshString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// metadataData builds a Metadata account as the program writes it; tail
// false stops after is_mutable, as accounts of old program versions do.
func metadataData(mint solana.PublicKey, tail bool, standard byte, collection *metaplex.Collection) []byte {
	b := []byte{byte(metaplex.KeyMetadataV1)}
	b = append(b, make([]byte, 32)...)
	b = append(b, mint[:]...)
	b = borshString(b, "Name\x00\x00")
	b = borshString(b, "SYM")
	b = borshString(b, "https://u")
	b = append(b, 0, 0) // seller fee
	b = append(b, 1)    // creators: Some
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, make([]byte, 34)...)
	b = append(b, 1, 1) // primary sale, mutable
	if !tail {
		return b
	}
	b = append(b, 1, 254, 1, standard) // edition_nonce, token_standard
	if collection == nil {
		b = append(b, 0)
	} else {
		v := byte(0)
		if collection.Verified {
			v = 1
		}
		b = append(b, 1, v)
		b = append(b, collection.Key[:]...)
	}
	return append(b, make([]byte, 100)...)
}

func TestParseMetadata(t *testing.T) {
	t.Parallel()
	mint, col := mplref.Key("mint"), mplref.Key("collection")
	md, err := metaplex.ParseMetadata(metadataData(mint, true, byte(metaplex.ProgrammableNonFungible), &metaplex.Collection{Verified: true, Key: col}))
	if err != nil || md.Mint != mint || md.Name != "Name\x00\x00" || md.TokenStandard == nil || *md.TokenStandard != metaplex.ProgrammableNonFungible ||
		md.EditionNonce == nil || *md.EditionNonce != 254 || md.Collection == nil || !md.Collection.Verified || md.Collection.Key != col {
		t.Fatalf("ParseMetadata = %+v, %v", md, err)
	}
	md, err = metaplex.ParseMetadata(metadataData(mint, false, 0, nil))
	if err != nil || md.TokenStandard != nil || md.Collection != nil || md.URI != "https://u" {
		t.Fatalf("old account: %+v, %v", md, err)
	}
	if _, err := metaplex.ParseMetadata([]byte{0}); err == nil {
		t.Fatal("stub parsed")
	}
}

func TestEditionsAndRecord(t *testing.T) {
	t.Parallel()
	me := append([]byte{byte(metaplex.KeyMasterEditionV2)}, binary.LittleEndian.AppendUint64(nil, 3)...)
	if m, err := metaplex.ParseMasterEdition(append(me, 0)); err != nil || m.Supply != 3 {
		t.Fatalf("ParseMasterEdition = %+v, %v", m, err)
	}
	parent := mplref.Key("parent")
	ed := append(append([]byte{byte(metaplex.KeyEditionV1)}, parent[:]...), binary.LittleEndian.AppendUint64(nil, 300)...)
	if e, err := metaplex.ParseEdition(ed); err != nil || e.Parent != parent || e.Number != 300 {
		t.Fatalf("ParseEdition = %+v, %v", e, err)
	}
	if _, err := metaplex.ParseEdition(me); err == nil {
		t.Fatal("master edition parsed as edition")
	}
	delegate := mplref.Key("delegate")
	tr := []byte{byte(metaplex.KeyTokenRecord), 255, byte(metaplex.Listed), 0, 1}
	tr = append(append(tr, delegate[:]...), 1, 0, 0)
	if r, err := metaplex.ParseTokenRecord(tr); err != nil || r.State != metaplex.Listed || r.Delegate == nil || *r.Delegate != delegate || r.DelegateRole == nil || *r.DelegateRole != 0 {
		t.Fatalf("ParseTokenRecord = %+v, %v", r, err)
	}
}

func TestMarkerClosesOnBurn(t *testing.T) {
	t.Parallel()
	v1 := func(bits ...uint64) []byte {
		b := make([]byte, 32)
		b[0] = byte(metaplex.KeyEditionMarker)
		for _, e := range bits {
			o := e % metaplex.EditionMarkerBitSize
			b[1+o/8] |= 1 << (7 - o%8)
		}
		return b
	}
	v2 := func(n int, bits ...uint64) []byte {
		b := binary.LittleEndian.AppendUint32([]byte{byte(metaplex.KeyEditionMarkerV2)}, uint32(n))
		b = append(b, make([]byte, n)...)
		for _, e := range bits {
			b[5+e/8] |= 1 << (7 - e%8)
		}
		return b
	}
	for _, c := range []struct {
		name        string
		data        []byte
		edition     uint64
		holdsMaster bool
		want        bool
	}{
		{"v1 last print, holder of the master", v1(300), 300, true, true},
		{"v1 last print, another holder", v1(300), 300, false, false},
		{"v1 other prints left", v1(300, 301), 300, true, false},
		{"v2 last print", v2(2, 9), 9, true, true},
		{"v2 other prints left", v2(2, 9, 1), 9, true, false},
		{"not a marker", []byte{4, 0}, 1, true, false},
	} {
		if got := metaplex.MarkerClosesOnBurn(c.data, c.edition, c.holdsMaster); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if !metaplex.MarkerClosesOnBurns(v1(300, 301), 301, 300) || metaplex.MarkerClosesOnBurns(v1(300, 301, 302), 300, 301) ||
		!metaplex.MarkerClosesOnBurns(v2(2, 9, 1), 1, 9) {
		t.Error("MarkerClosesOnBurns: burns of every print set must close the marker, and only they")
	}
}

func TestRefund(t *testing.T) {
	t.Parallel()
	rent := func(n uint64) uint64 { return (128 + n) * 6960 }
	c := metaplex.Closed{Token: 2_039_280, Edition: 2_853_600, TokenRecord: 1_000, MetadataLamports: rent(607) + 10_000_000, MetadataSize: 607}
	got, ok := metaplex.Refund(c, rent)
	if want := c.Token + c.Edition + c.TokenRecord + rent(607); !ok || got != want {
		t.Fatalf("Refund = %d, %v; want %d (the metadata's fee stays)", got, ok, want)
	}
	c.MetadataLamports = rent(607) - 1
	if _, ok := metaplex.Refund(c, rent); ok {
		t.Fatal("metadata below its rent-exempt minimum: the burn fails")
	}
}
