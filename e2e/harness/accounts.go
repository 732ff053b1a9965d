package harness

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// Fixture helpers for wallets with many token accounts and Token-2022
// metadata; the instructions come from package spltoken.

// accountsPerTx keeps a transaction of CreateAccount+InitializeAccount3 pairs,
// each with its own signer, under 1232 bytes.
const accountsPerTx = 4

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
	size := uint64(spltoken.ExtendedSize(spltoken.MetadataPointerLen))
	rent, err := v.RPC.GetMinimumBalanceForRentExemption(context.Background(),
		size+spltoken.TokenMetadataSize(name, symbol, uri), rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("rent: %v", err)
	}
	v.Send(t, authority, []solana.Instruction{
		system.NewCreateAccountInstruction(rent, size, solana.Token2022ProgramID, auth, mint).Build(),
		spltoken.InitializeMetadataPointer(mint, auth, mint),
		spltoken.InitializeMint2(solana.Token2022ProgramID, mint, decimals, auth, nil),
		spltoken.InitializeTokenMetadata(mint, auth, auth, name, symbol, uri),
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
				system.NewCreateAccountInstruction(TokenAccountRent, spltoken.AccountSize, mint.Program, o, key.PublicKey()).Build(),
				spltoken.InitializeAccount3(mint.Program, key.PublicKey(), mint.Address, o))
			signers = append(signers, key)
			out = append(out, key.PublicKey())
		}
		v.Send(t, owner, ixs, signers...)
	}
	return out
}
