package spltoken

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/borsh"
)

// TokenMetadata is the display part of the spl-token-metadata-interface
// TokenMetadata that Token-2022 keeps in a mint's extension. Strings are as
// stored: neither trimmed nor checked for UTF-8.
type TokenMetadata struct {
	Name, Symbol, URI string
}

// ParseTokenMetadata reads the TokenMetadata extension's value:
// update_authority 32, mint 32, name, symbol, uri (u32-length strings),
// additional_metadata (not read).
func ParseTokenMetadata(value []byte) (TokenMetadata, error) {
	r := borsh.NewReader(value)
	r.Skip(64)
	md := TokenMetadata{Name: r.Str(), Symbol: r.Str(), URI: r.Str()}
	if r.Err() != nil {
		return TokenMetadata{}, ErrLayout
	}
	return md, nil
}

// TokenMetadataSize is the TLV entry (header included) that
// InitializeTokenMetadata appends to a mint: update authority, mint, three
// strings, an empty additional_metadata vector.
func TokenMetadataSize(name, symbol, uri string) uint64 {
	return uint64(4 + 32 + 32 + 4 + len(name) + 4 + len(symbol) + 4 + len(uri) + 4)
}

// InitializeTokenMetadata (spl-token-metadata-interface, served by
// Token-2022 for a mint whose metadata pointer is the mint itself) writes
// name, symbol and uri. Data: the first 8 bytes of
// sha256("spl_token_metadata_interface:initialize_account"), then the three
// strings (u32 length, bytes). Accounts: metadata (the mint, w), update
// authority, mint, mint authority (s).
func InitializeTokenMetadata(mint, updateAuthority, mintAuthority solana.PublicKey, name, symbol, uri string) solana.Instruction {
	sum := sha256.Sum256([]byte("spl_token_metadata_interface:initialize_account"))
	data := append([]byte{}, sum[:8]...)
	for _, s := range []string{name, symbol, uri} {
		data = append(binary.LittleEndian.AppendUint32(data, uint32(len(s))), s...)
	}
	return solana.NewInstruction(solana.Token2022ProgramID, solana.AccountMetaSlice{
		solana.Meta(mint).WRITE(), solana.Meta(updateAuthority), solana.Meta(mint), solana.Meta(mintAuthority).SIGNER(),
	}, data)
}
