package metaplex_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/mplref"
)

// TestBurnV1MatchesJSClient pins the BurnV1 encoder byte for byte, PDAs
// included, against @metaplex-foundation/mpl-token-metadata's burnV1 for
// the same inputs (testdata/burn_v1.golden; rebuilt by the JS client when
// node is available, always under CI=true).
func TestBurnV1MatchesJSClient(t *testing.T) {
	t.Parallel()
	wallet, mint, token := mplref.Key("wallet"), mplref.Key("mint"), mplref.Key("token")
	collection := mplref.Key("collection mint")
	master, masterToken := mplref.Key("master mint"), mplref.Key("master token")
	tokenRecord := metaplex.TokenRecordAddress(mint, token)
	ptr := func(k solana.PublicKey) *solana.PublicKey { return &k }
	base := func() metaplex.BurnV1 {
		return metaplex.BurnV1{
			Authority: wallet, Metadata: metaplex.MetadataAddress(mint), Edition: metaplex.EditionAddress(mint),
			Mint: mint, Token: token, TokenProgram: solana.TokenProgramID, Amount: 1,
		}
	}
	request := func(standard string, extra map[string]any) map[string]any {
		r := map[string]any{"kind": "tmBurnV1", "authority": wallet.String(), "mint": mint.String(), "token": token.String(), "tokenStandard": standard}
		for k, v := range extra {
			r[k] = v
		}
		return r
	}
	type tc struct {
		name string
		req  map[string]any
		burn func() metaplex.BurnV1
	}
	cases := []tc{
		{"nft", request("NonFungible", nil), base},
		{"pnft with token record", request("ProgrammableNonFungible", nil), func() metaplex.BurnV1 {
			b := base()
			b.TokenRecord = &tokenRecord
			return b
		}},
		{"print edition", request("NonFungibleEdition", map[string]any{
			"masterEditionMint": master.String(), "masterEditionToken": masterToken.String(), "editionNumber": 300,
		}), func() metaplex.BurnV1 {
			b := base()
			b.MasterEdition = ptr(metaplex.EditionAddress(master))
			b.MasterEditionMint, b.MasterEditionToken = &master, &masterToken
			b.EditionMarker = ptr(metaplex.EditionMarkerAddress(master, 300))
			return b
		}},
		{"pnft print edition", request("ProgrammableNonFungibleEdition", map[string]any{
			"masterEditionMint": master.String(), "masterEditionToken": masterToken.String(), "editionNumber": 7,
		}), func() metaplex.BurnV1 {
			b := base()
			b.MasterEdition = ptr(metaplex.EditionAddress(master))
			b.MasterEditionMint, b.MasterEditionToken = &master, &masterToken
			b.EditionMarker = ptr(metaplex.EditionMarkerV2Address(master))
			b.TokenRecord = &tokenRecord
			return b
		}},
		{"nft in a verified collection", request("NonFungible", map[string]any{"collectionMint": collection.String()}), func() metaplex.BurnV1 {
			b := base()
			b.CollectionMetadata = ptr(metaplex.MetadataAddress(collection))
			return b
		}},
		{"token-2022 pnft in a collection", request("ProgrammableNonFungible", map[string]any{
			"collectionMint": collection.String(), "splTokenProgram": solana.Token2022ProgramID.String(),
		}), func() metaplex.BurnV1 {
			b := base()
			b.TokenRecord = &tokenRecord
			b.CollectionMetadata = ptr(metaplex.MetadataAddress(collection))
			b.TokenProgram = solana.Token2022ProgramID
			return b
		}},
	}
	goldens := make([]mplref.Golden, len(cases))
	for i, c := range cases {
		goldens[i] = mplref.Golden{Name: c.name, Request: c.req}
	}
	want := mplref.Expected(t, filepath.Join("testdata", "burn_v1.golden"), goldens)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(want[i].Instructions) != 1 {
				t.Fatalf("JS client built %d instructions, want 1", len(want[i].Instructions))
			}
			got, _ := json.MarshalIndent(mplref.ToJS(t, c.burn().Instruction()), "", " ")
			exp, _ := json.MarshalIndent(want[i].Instructions[0], "", " ")
			if string(got) != string(exp) {
				t.Errorf("instruction differs from the JS client's:\n got %s\nwant %s", got, exp)
			}
		})
	}
}

func TestBurnAccounts(t *testing.T) {
	t.Parallel()
	edition, marker := mplref.Key("edition"), mplref.Key("marker")
	a := metaplex.BurnAccounts{Standard: metaplex.NonFungibleEdition, Metadata: mplref.Key("metadata"), Edition: edition, EditionMarker: &marker}
	authority, mint, token := mplref.Key("authority"), mplref.Key("mint"), mplref.Key("token")
	got := a.BurnV1(authority, mint, token, solana.Token2022ProgramID)
	want := metaplex.BurnV1{Authority: authority, Metadata: a.Metadata, Edition: edition, Mint: mint, Token: token,
		EditionMarker: &marker, TokenProgram: solana.Token2022ProgramID, Amount: 1}
	if got != want {
		t.Fatalf("BurnV1 = %+v, want %+v", got, want)
	}
}
