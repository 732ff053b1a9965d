package spltoken_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/gagliardetto/solana-go"
	ata "github.com/gagliardetto/solana-go/programs/associated-token-account"
	tokenprog "github.com/gagliardetto/solana-go/programs/token"

	"github.com/reclaim-sol/reclaim/backend/chain/ixtest"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// key is a fixed public key named for a test.
func key(name string) solana.PublicKey {
	h := sha256.Sum256([]byte(name))
	return solana.PublicKeyFromBytes(h[:])
}

func hx(k solana.PublicKey) string { return hex.EncodeToString(k[:]) }

// TestInstructionLayouts pins every encoder byte for byte, and, where
// solana-go ships an encoder (bound to SPL Token), checks ours against it.
func TestInstructionLayouts(t *testing.T) {
	t.Parallel()
	acct, mint, owner, to := key("account"), key("mint"), key("owner"), key("to")
	tok, t22 := solana.TokenProgramID, solana.Token2022ProgramID
	signerW, w, s, ro := func(k solana.PublicKey) ixtest.Meta { return ixtest.Meta{Key: k, Signer: true, Writable: true} },
		func(k solana.PublicKey) ixtest.Meta { return ixtest.Meta{Key: k, Writable: true} },
		func(k solana.PublicKey) ixtest.Meta { return ixtest.Meta{Key: k, Signer: true} },
		func(k solana.PublicKey) ixtest.Meta { return ixtest.Meta{Key: k} }
	tokenAta := spltoken.AssociatedTokenAddress(owner, mint, tok)
	ata22 := spltoken.AssociatedTokenAddress(owner, mint, t22)
	mdSum := sha256.Sum256([]byte("spl_token_metadata_interface:initialize_account"))
	cases := []ixtest.Case{
		{
			Name: "CloseAccount Token", Ix: spltoken.CloseAccount(tok, acct, to, owner),
			Program: tok, Data: "09", Metas: []ixtest.Meta{w(acct), w(to), s(owner)},
			Same: tokenprog.NewCloseAccountInstruction(acct, to, owner, nil).Build(),
		},
		{
			Name: "CloseAccount Token-2022", Ix: spltoken.CloseAccount(t22, acct, to, owner),
			Program: t22, Data: "09", Metas: []ixtest.Meta{w(acct), w(to), s(owner)},
		},
		{
			Name: "BurnChecked", Ix: spltoken.BurnChecked(tok, acct, mint, owner, 1_500_000, 6),
			Program: tok, Data: "0f" + "60e3160000000000" + "06", Metas: []ixtest.Meta{w(acct), w(mint), s(owner)},
			Same: tokenprog.NewBurnCheckedInstruction(1_500_000, 6, acct, mint, owner, nil).Build(),
		},
		{
			Name: "BurnChecked Token-2022 max", Ix: spltoken.BurnChecked(t22, acct, mint, owner, ^uint64(0), 9),
			Program: t22, Data: "0f" + "ffffffffffffffff" + "09", Metas: []ixtest.Meta{w(acct), w(mint), s(owner)},
		},
		{
			Name: "TransferChecked", Ix: spltoken.TransferChecked(tok, acct, mint, to, owner, 1_000, 2),
			Program: tok, Data: "0c" + "e803000000000000" + "02", Metas: []ixtest.Meta{w(acct), ro(mint), w(to), s(owner)},
			Same: tokenprog.NewTransferCheckedInstruction(1_000, 2, acct, mint, to, owner, nil).Build(),
		},
		{
			Name: "MintToChecked", Ix: spltoken.MintToChecked(tok, mint, to, owner, 5_000_000, 6),
			Program: tok, Data: "0e" + "404b4c0000000000" + "06", Metas: []ixtest.Meta{w(mint), w(to), s(owner)},
			Same: tokenprog.NewMintToCheckedInstruction(5_000_000, 6, mint, to, owner, nil).Build(),
		},
		{
			Name: "FreezeAccount", Ix: spltoken.FreezeAccount(tok, acct, mint, owner),
			Program: tok, Data: "0a", Metas: []ixtest.Meta{w(acct), ro(mint), s(owner)},
			Same: tokenprog.NewFreezeAccountInstruction(acct, mint, owner, nil).Build(),
		},
		{
			Name: "SyncNative", Ix: spltoken.SyncNative(tok, acct),
			Program: tok, Data: "11", Metas: []ixtest.Meta{w(acct)},
			Same: tokenprog.NewSyncNativeInstruction(acct).Build(),
		},
		{
			Name: "InitializeMint2 with freeze authority", Ix: spltoken.InitializeMint2(tok, mint, 6, owner, &to),
			Program: tok, Data: "1406" + hx(owner) + "01" + hx(to), Metas: []ixtest.Meta{w(mint)},
			Same: tokenprog.NewInitializeMint2Instruction(6, owner, to, mint).Build(),
		},
		{
			Name: "InitializeMint2 Token-2022 without freeze authority", Ix: spltoken.InitializeMint2(t22, mint, 0, owner, nil),
			Program: t22, Data: "1400" + hx(owner) + "00", Metas: []ixtest.Meta{w(mint)},
		},
		{
			Name: "InitializeMintCloseAuthority", Ix: spltoken.InitializeMintCloseAuthority(mint, &owner),
			Program: t22, Data: "1901" + hx(owner), Metas: []ixtest.Meta{w(mint)},
		},
		{
			Name: "InitializeAccount3", Ix: spltoken.InitializeAccount3(tok, acct, mint, owner),
			Program: tok, Data: "12" + hx(owner), Metas: []ixtest.Meta{w(acct), ro(mint)},
			Same: tokenprog.NewInitializeAccount3Instruction(owner, acct, mint).Build(),
		},
		{
			Name: "SetAuthority close", Ix: spltoken.SetAuthority(tok, acct, owner, spltoken.AuthorityCloseAccount, &to),
			Program: tok, Data: "0603" + "01" + hx(to), Metas: []ixtest.Meta{w(acct), s(owner)},
			Same: tokenprog.NewSetAuthorityInstruction(tokenprog.AuthorityCloseAccount, to, acct, owner, nil).Build(),
		},
		{
			Name: "SetAuthority clear", Ix: spltoken.SetAuthority(t22, acct, owner, spltoken.AuthorityCloseAccount, nil),
			Program: t22, Data: "060300", Metas: []ixtest.Meta{w(acct), s(owner)},
		},
		{
			Name: "HarvestWithheldTokensToMint", Ix: spltoken.HarvestWithheldTokensToMint(mint, acct),
			Program: t22, Data: "1a04", Metas: []ixtest.Meta{w(mint), w(acct)},
		},
		{
			Name: "HarvestWithheldTokensToMint two sources", Ix: spltoken.HarvestWithheldTokensToMint(mint, acct, to),
			Program: t22, Data: "1a04", Metas: []ixtest.Meta{w(mint), w(acct), w(to)},
		},
		{
			Name: "InitializeTransferFeeConfig", Ix: spltoken.InitializeTransferFeeConfig(mint, &owner, nil, 100, 1_000_000),
			Program: t22, Data: "1a00" + "01" + hx(owner) + "00" + "6400" + "40420f0000000000", Metas: []ixtest.Meta{w(mint)},
		},
		{
			Name: "InitializeMetadataPointer", Ix: spltoken.InitializeMetadataPointer(mint, owner, mint),
			Program: t22, Data: "2700" + hx(owner) + hx(mint), Metas: []ixtest.Meta{w(mint)},
		},
		{
			Name: "InitializeTokenMetadata", Ix: spltoken.InitializeTokenMetadata(mint, owner, to, "N", "S", "u"),
			Program: t22, Data: hex.EncodeToString(mdSum[:8]) + "010000004e" + "0100000053" + "0100000075",
			Metas: []ixtest.Meta{w(mint), ro(owner), ro(mint), s(to)},
		},
		{
			// spl-token-2022's withdraw_excess_lamports (instruction.rs):
			// TokenInstruction::WithdrawExcessLamports packs as [38];
			// source and destination writable, the authority a signer.
			Name: "WithdrawExcessLamports Token-2022", Ix: spltoken.WithdrawExcessLamports(t22, acct, to, owner),
			Program: t22, Data: "26", Metas: []ixtest.Meta{w(acct), w(to), s(owner)},
		},
		{
			// p-token's (spl-token-interface) instruction 38, the same layout.
			Name: "WithdrawExcessLamports SPL Token (p-token)", Ix: spltoken.WithdrawExcessLamports(tok, mint, to, owner),
			Program: tok, Data: "26", Metas: []ixtest.Meta{w(mint), w(to), s(owner)},
		},
		{
			Name: "CreateAssociatedTokenAccount", Ix: spltoken.CreateAssociatedTokenAccount(to, owner, mint, tok, false),
			Program: solana.SPLAssociatedTokenAccountProgramID, Data: "",
			Metas: []ixtest.Meta{signerW(to), w(tokenAta), ro(owner), ro(mint), ro(solana.SystemProgramID), ro(tok)},
			Same:  ata.NewCreateInstruction(to, owner, mint).Build(),
		},
		{
			Name: "CreateIdempotent Token-2022", Ix: spltoken.CreateAssociatedTokenAccount(to, owner, mint, t22, true),
			Program: solana.SPLAssociatedTokenAccountProgramID, Data: "01",
			Metas: []ixtest.Meta{signerW(to), w(ata22), ro(owner), ro(mint), ro(solana.SystemProgramID), ro(t22)},
		},
	}
	ixtest.Run(t, cases)
}

func TestAssociatedTokenAddress(t *testing.T) {
	t.Parallel()
	owner, mint := key("owner"), key("mint")
	want, _, err := solana.FindAssociatedTokenAddress(owner, mint)
	if err != nil {
		t.Fatal(err)
	}
	if got := spltoken.AssociatedTokenAddress(owner, mint, solana.TokenProgramID); got != want {
		t.Errorf("SPL Token: %s, solana-go derives %s", got, want)
	}
	if spltoken.AssociatedTokenAddress(owner, mint, solana.Token2022ProgramID) == want {
		t.Error("the Token-2022 account is the SPL Token one")
	}
}
