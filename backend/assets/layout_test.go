package assets

import (
	"testing"

	"github.com/gagliardetto/solana-go"
)

func TestAssetsUIAmount(t *testing.T) {
	t.Parallel()
	cases := []struct {
		amount   uint64
		decimals uint8
		want     float64
	}{
		{0, 6, 0},
		{1_500_000, 6, 1.5},
		{1, 9, 0.000000001},
		{123, 0, 123},
		{18_446_744_073_709_551_615, 0, 18446744073709551615},
		{18_446_744_073_709_551_615, 19, 1.8446744073709551615},
		{100_000_000, 9, 0.1},
	}
	for _, tc := range cases {
		if got := uiAmount(tc.amount, tc.decimals); got != tc.want {
			t.Errorf("uiAmount(%d, %d) = %v, want %v", tc.amount, tc.decimals, got, tc.want)
		}
	}
}

func TestAssetsParseTokenAccountRejects(t *testing.T) {
	t.Parallel()
	good := acct{mint: solana.NewWallet().PublicKey(), owner: solana.NewWallet().PublicKey(), token2022: true}.encode()
	mintType := append([]byte{}, good...)
	mintType[tokenAccountSize] = accountTypeMint
	badState := append([]byte{}, good...)
	badState[108] = 3
	cases := map[string][]byte{
		"short":             good[:164],
		"multisig size":     make([]byte, multisigSize),
		"Token-2022 mint":   mintType,
		"unknown state":     badState,
		"uninitialized 165": make([]byte, tokenAccountSize),
	}
	for name, data := range cases {
		if _, err := parseTokenAccount(data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if _, err := parseTokenAccount(good); err != nil {
		t.Errorf("good account: %v", err)
	}
	// A TLV entry that overruns the data is ignored, not a failure.
	overrun := append(append([]byte{}, good[:tokenAccountSize+1]...), tlv(extTransferFeeAmount, le64(9))[:6]...)
	if a, err := parseTokenAccount(overrun); err != nil || a.withheld != 0 {
		t.Errorf("overrunning extension: %+v, %v", a, err)
	}
}

func TestAssetsParseMetaplex(t *testing.T) {
	t.Parallel()
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

func TestAssetsParseMintMetadataExtension(t *testing.T) {
	t.Parallel()
	m := solana.NewWallet().PublicKey()
	st, ok := parseMint(mintBytes(m, 9, 42, &tokenMetadata{name: "N", symbol: "S", uri: "U"}))
	if !ok || st.decimals != 9 || st.supply != 42 || st.metadata == nil || *st.metadata != (tokenMetadata{name: "N", symbol: "S", uri: "U"}) {
		t.Errorf("mint %+v ok=%v", st, ok)
	}
	if _, ok := parseMint(make([]byte, mintSize)); ok {
		t.Error("uninitialized mint parsed")
	}
}
