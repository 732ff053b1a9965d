package assets

import (
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/metaplex"
)

// parseMetaplex reads the display metadata of mint from a Metaplex Metadata
// account (see metaplex.ParseMetadata): name, symbol and uri cleaned, and the
// collection only when it is verified. Accounts written by old program
// versions end before the collection: they have none. It returns nil when
// data is not the metadata of mint.
func parseMetaplex(data []byte, mint solana.PublicKey) *tokenMetadata {
	md, err := metaplex.ParseMetadata(data)
	if err != nil || md.Mint != mint {
		return nil
	}
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
