package harness

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
)

// Fixture helpers for wallets with many token accounts, close authorities and
// Token-2022 metadata: instruction encoders follow the programs' unpackers, like
// those of instructions.go.

// Token instruction tags and extension sub-instructions used here.
const (
	tagSetAuthority           = 6
	tagInitializeAccount3     = 18
	tagMetadataPointerExt     = 39
	metadataPointerInit       = 0
	authorityTypeCloseAccount = 3
	// accountsPerTx keeps a transaction of CreateAccount+InitializeAccount3 pairs,
	// each with its own signer, under 1232 bytes.
	accountsPerTx = 4
	// MintWithMetadataPointerSize is a Token-2022 mint with MetadataPointer: the
	// base padded to 165 bytes, the account-type byte, a 4-byte TLV header and 64
	// bytes. TokenMetadata is appended by its Initialize instruction.
	MintWithMetadataPointerSize = 165 + 1 + 4 + 64
)

// InitializeAccount3 initializes a token account created beforehand for owner.
func InitializeAccount3(program, account, mint, owner solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(account).WRITE(), solana.Meta(mint)},
		append([]byte{tagInitializeAccount3}, owner[:]...))
}

// SetCloseAuthority sets (or with nil clears) a token account's close authority,
// signed by its current close authority (the owner when none is set).
func SetCloseAuthority(program, account, current solana.PublicKey, newAuthority *solana.PublicKey) solana.Instruction {
	data := []byte{tagSetAuthority, authorityTypeCloseAccount}
	if newAuthority == nil {
		data = append(data, 0)
	} else {
		data = append(append(data, 1), newAuthority[:]...)
	}
	return solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(account).WRITE(), solana.Meta(current).SIGNER()}, data)
}

// InitializeMetadataPointer (Token-2022) points a mint's metadata at metadata; it
// must precede InitializeMint2. authority zero means none.
func InitializeMetadataPointer(mint, authority, metadata solana.PublicKey) solana.Instruction {
	data := []byte{tagMetadataPointerExt, metadataPointerInit}
	data = append(append(data, authority[:]...), metadata[:]...)
	return solana.NewInstruction(solana.Token2022ProgramID, solana.AccountMetaSlice{solana.Meta(mint).WRITE()}, data)
}

// InitializeTokenMetadata (spl-token-metadata-interface, served by Token-2022 for
// a mint whose metadata pointer is the mint itself) writes name, symbol and uri.
// Its discriminator is the first 8 bytes of
// sha256("spl_token_metadata_interface:initialize_account").
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

// TokenMetadataSize is the TLV entry (header included) that InitializeTokenMetadata
// appends to a mint: update authority, mint, three strings, an empty
// additional_metadata vector.
func TokenMetadataSize(name, symbol, uri string) uint64 {
	return uint64(4 + 32 + 32 + 4 + len(name) + 4 + len(symbol) + 4 + len(uri) + 4)
}

// CreateMintWithMetadata creates a Token-2022 mint whose MetadataPointer points at
// itself and whose TokenMetadata extension holds name, symbol and uri, with
// authority as mint, freeze-less, and update authority. The mint is funded for
// its final size up front: Initialize reallocates it but moves no lamports.
func (v *Validator) CreateMintWithMetadata(t testing.TB, authority solana.PrivateKey, decimals uint8, name, symbol, uri string) Mint {
	t.Helper()
	mintKey, err := solana.NewRandomPrivateKey()
	if err != nil {
		t.Fatalf("new key: %v", err)
	}
	mint, auth := mintKey.PublicKey(), authority.PublicKey()
	rent, err := v.RPC.GetMinimumBalanceForRentExemption(context.Background(),
		MintWithMetadataPointerSize+TokenMetadataSize(name, symbol, uri), rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("rent: %v", err)
	}
	v.Send(t, authority, []solana.Instruction{
		system.NewCreateAccountInstruction(rent, MintWithMetadataPointerSize, solana.Token2022ProgramID, auth, mint).Build(),
		InitializeMetadataPointer(mint, auth, mint),
		InitializeMint2(solana.Token2022ProgramID, mint, decimals, auth, nil),
		InitializeTokenMetadata(mint, auth, auth, name, symbol, uri),
	}, mintKey)
	return Mint{Address: mint, Program: solana.Token2022ProgramID, Decimals: decimals, Authority: authority}
}

// CreateTokenAccounts creates n token accounts (not associated ones) of mint owned
// by owner, paid by owner, a few per transaction. The mint must need no account
// extensions (165-byte accounts).
func (v *Validator) CreateTokenAccounts(t testing.TB, owner solana.PrivateKey, mint Mint, n int) []solana.PublicKey {
	t.Helper()
	o := owner.PublicKey()
	var out []solana.PublicKey
	for len(out) < n {
		var ixs []solana.Instruction
		var signers []solana.PrivateKey
		for range min(accountsPerTx, n-len(out)) {
			key, err := solana.NewRandomPrivateKey()
			if err != nil {
				t.Fatalf("new key: %v", err)
			}
			ixs = append(ixs,
				system.NewCreateAccountInstruction(TokenAccountRent, 165, mint.Program, o, key.PublicKey()).Build(),
				InitializeAccount3(mint.Program, key.PublicKey(), mint.Address, o))
			signers = append(signers, key)
			out = append(out, key.PublicKey())
		}
		v.Send(t, owner, ixs, signers...)
	}
	return out
}
