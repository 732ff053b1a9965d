package assets

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
)

func TestAssetsParseMetaplex(t *testing.T) {
	t.Parallel()
	parseMetaplex := func(data []byte, mint solana.PublicKey) *tokenMetadata {
		return metaplexOf(&rpc.Account{Owner: metaplex.ProgramID, Data: rpc.DataBytesOrJSONFromBytes(data)}, mint)
	}
	mint := solana.NewWallet().PublicKey()
	col := solana.NewWallet().PublicKey()
	full := metaplexBytes(mint, "Name\x00", "SYM", "https://x/y.json", 5, &col, true)
	md := parseMetaplex(full, mint)
	if md == nil || md.name != "Name" || md.symbol != "SYM" || md.uri != "https://x/y.json" || md.collection == nil || *md.collection != col {
		t.Fatalf("parsed %+v", md)
	}
	if parseMetaplex(full, solana.NewWallet().PublicKey()) != nil {
		t.Error("metadata of another mint accepted")
	}
	// An account written before edition_nonce existed ends after is_mutable.
	old := metaplexBytes(mint, "Old", "O", "u", 0, nil, false)
	oldLen := 1 + 32 + 32 + (4 + 32) + (4 + 10) + (4 + 200) + 2 + 1 + 2
	if md := parseMetaplex(old[:oldLen], mint); md == nil || md.name != "Old" || md.collection != nil {
		t.Errorf("old layout: %+v", md)
	}
	if parseMetaplex(full[:100], mint) != nil {
		t.Error("truncated name accepted")
	}
	wrongKey := append([]byte{}, full...)
	wrongKey[0] = 6 // MasterEditionV2
	if parseMetaplex(wrongKey, mint) != nil {
		t.Error("a master edition read as metadata")
	}
	bad := metaplexBytes(mint, "bad \xff name", "S", "", 0, nil, false)
	if md := parseMetaplex(bad, mint); md == nil || md.name != "bad \uFFFD name" {
		t.Errorf("invalid UTF-8: %+v", md)
	}
}
