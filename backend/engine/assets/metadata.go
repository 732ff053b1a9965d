package assets

import (
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// tokenMetadata is the display metadata from either metadata standard, its
// strings cleaned (see cleanString).
type tokenMetadata struct {
	name, symbol, uri string
	// collection is the verified Metaplex collection mint; nil when none.
	collection *solana.PublicKey
}

// displayMetadata is Token-2022's TokenMetadata extension for display; nil
// when the mint has none.
func displayMetadata(md *spltoken.TokenMetadata) *tokenMetadata {
	if md == nil {
		return nil
	}
	return &tokenMetadata{name: cleanString(md.Name), symbol: cleanString(md.Symbol), uri: cleanString(md.URI)}
}

// metaplexDisplay is the display part of Metaplex metadata: name, symbol and
// uri cleaned, and the collection only when it is verified (anyone can claim
// an unverified one). Accounts written by old program versions end before
// the collection: they have none.
func metaplexDisplay(md metaplex.Metadata) *tokenMetadata {
	out := &tokenMetadata{name: cleanString(md.Name), symbol: cleanString(md.Symbol), uri: cleanString(md.URI)}
	if c := md.Collection; c != nil && c.Verified {
		key := c.Key
		out.collection = &key
	}
	return out
}

// cleanString drops the NUL padding Metaplex writes after names, symbols and uris,
// and replaces invalid UTF-8 (on-chain strings are arbitrary bytes; protobuf
// strings must be UTF-8).
func cleanString(s string) string {
	return strings.ToValidUTF8(strings.TrimSpace(strings.TrimRight(s, "\x00")), "\uFFFD")
}
