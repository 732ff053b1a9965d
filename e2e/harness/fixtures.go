package harness

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// Rent-exempt minimums under the default rent (what a real cluster charges too).
const (
	// TokenAccountRent is the rent-exempt balance of a 165-byte token account.
	TokenAccountRent = 2_039_280
	// MintRent is the rent-exempt balance of an 82-byte mint.
	MintRent = 1_461_600
)

// NewWallet makes a keypair and funds it with a real airdrop, confirmed.
func (v *Validator) NewWallet(t testing.TB, lamports uint64) solana.PrivateKey {
	t.Helper()
	key, err := solana.NewRandomPrivateKey()
	if err != nil {
		t.Fatalf("new key: %v", err)
	}
	v.Airdrop(t, key.PublicKey(), lamports)
	return key
}

// Airdrop requests lamports for to and waits until the airdrop is confirmed.
func (v *Validator) Airdrop(t testing.TB, to solana.PublicKey, lamports uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ConfirmTimeout+10*time.Second)
	defer cancel()
	sig, err := v.RPC.RequestAirdrop(ctx, to, lamports, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("airdrop %d to %s: %v", lamports, to, err)
	}
	if _, err := v.WaitConfirmed(ctx, sig); err != nil {
		t.Fatalf("airdrop %d to %s: %v", lamports, to, err)
	}
}

// Balance reads an account's lamports (0 when it does not exist).
func (v *Validator) Balance(t testing.TB, pk solana.PublicKey) uint64 {
	t.Helper()
	res, err := v.RPC.GetBalance(context.Background(), pk, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("balance of %s: %v", pk, err)
	}
	return res.Value
}

// MintSpec describes a mint to create.
type MintSpec struct {
	// Program is solana.TokenProgramID (default) or solana.Token2022ProgramID.
	Program solana.PublicKey
	// Decimals of the mint.
	Decimals uint8
	// Freeze gives the mint a freeze authority (the mint authority).
	Freeze bool
	// TransferFeeBasisPoints and MaxTransferFee, when the basis points are non-zero,
	// add Token-2022's TransferFeeConfig (authorities: the mint authority).
	TransferFeeBasisPoints uint16
	MaxTransferFee         uint64
}

// Mint is a created mint.
type Mint struct {
	Address   solana.PublicKey
	Program   solana.PublicKey
	Decimals  uint8
	Authority solana.PrivateKey
}

// CreateMint creates and initializes a mint whose mint (and freeze) authority is
// authority, paid by authority.
func (v *Validator) CreateMint(t testing.TB, authority solana.PrivateKey, spec MintSpec) Mint {
	t.Helper()
	program := spec.Program
	if program.IsZero() {
		program = solana.TokenProgramID
	}
	mintKey, err := solana.NewRandomPrivateKey()
	if err != nil {
		t.Fatalf("new key: %v", err)
	}
	mint := mintKey.PublicKey()
	auth := authority.PublicKey()
	size := uint64(spltoken.MintSize)
	var ixs []solana.Instruction
	if spec.TransferFeeBasisPoints > 0 {
		if !program.Equals(solana.Token2022ProgramID) {
			t.Fatalf("transfer fees need Token-2022")
		}
		size = uint64(spltoken.ExtendedSize(spltoken.TransferFeeConfigLen))
		ixs = append(ixs, spltoken.InitializeTransferFeeConfig(mint, &auth, &auth, spec.TransferFeeBasisPoints, spec.MaxTransferFee))
	}
	rent, err := v.RPC.GetMinimumBalanceForRentExemption(context.Background(), size, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("rent: %v", err)
	}
	var freeze *solana.PublicKey
	if spec.Freeze {
		freeze = &auth
	}
	ixs = append([]solana.Instruction{system.NewCreateAccountInstruction(rent, size, program, auth, mint).Build()}, ixs...)
	ixs = append(ixs, spltoken.InitializeMint2(program, mint, spec.Decimals, auth, freeze))
	v.Send(t, authority, ixs, mintKey)
	return Mint{Address: mint, Program: program, Decimals: spec.Decimals, Authority: authority}
}

// CreateATA creates owner's associated token account for mint, paid by payer.
func (v *Validator) CreateATA(t testing.TB, payer solana.PrivateKey, owner solana.PublicKey, mint Mint) solana.PublicKey {
	t.Helper()
	v.Send(t, payer, []solana.Instruction{spltoken.CreateAssociatedTokenAccount(payer.PublicKey(), owner, mint.Address, mint.Program, false)})
	return spltoken.AssociatedTokenAddress(owner, mint.Address, mint.Program)
}

// MintTo mints amount (base units) of mint into dest, signed by the mint authority.
func (v *Validator) MintTo(t testing.TB, mint Mint, dest solana.PublicKey, amount uint64) {
	t.Helper()
	v.Send(t, mint.Authority, []solana.Instruction{spltoken.MintToChecked(mint.Program, mint.Address, dest, mint.Authority.PublicKey(), amount, mint.Decimals)})
}

// Freeze freezes a token account of mint with the mint's freeze authority.
func (v *Validator) Freeze(t testing.TB, mint Mint, account solana.PublicKey) {
	t.Helper()
	v.Send(t, mint.Authority, []solana.Instruction{spltoken.FreezeAccount(mint.Program, account, mint.Address, mint.Authority.PublicKey())})
}

// Transfer moves amount of mint from owner's account to dest (a transfer-fee mint
// withholds its fee in dest).
func (v *Validator) Transfer(t testing.TB, owner solana.PrivateKey, mint Mint, source, dest solana.PublicKey, amount uint64) {
	t.Helper()
	v.Send(t, owner, []solana.Instruction{spltoken.TransferChecked(mint.Program, source, mint.Address, dest, owner.PublicKey(), amount, mint.Decimals)})
}

// WrapSOL creates owner's wrapped-SOL (native mint, Token program) associated account
// holding lamports wrapped, paid by owner.
func (v *Validator) WrapSOL(t testing.TB, owner solana.PrivateKey, lamports uint64) solana.PublicKey {
	t.Helper()
	o := owner.PublicKey()
	ata := spltoken.AssociatedTokenAddress(o, solana.WrappedSol, solana.TokenProgramID)
	v.Send(t, owner, []solana.Instruction{
		spltoken.CreateAssociatedTokenAccount(o, o, solana.WrappedSol, solana.TokenProgramID, true),
		system.NewTransferInstruction(lamports, o, ata).Build(),
		spltoken.SyncNative(solana.TokenProgramID, ata),
	})
	return ata
}

// WalletFixture is a wallet holding the kinds of token accounts Reclaim deals with.
// The wallet paid for its own accounts; a separate issuer holds the mint authorities.
type WalletFixture struct {
	Owner  solana.PrivateKey
	Issuer solana.PrivateKey

	// Mints.
	Token       Mint // Token, 6 decimals, no freeze authority
	Freezable   Mint // Token, 6 decimals, freeze authority
	Token22     Mint // Token-2022, 9 decimals, no extensions
	TransferFee Mint // Token-2022, 6 decimals, TransferFeeConfig 100 bps (max 1_000_000)
	NFT         Mint // Token, decimals 0, supply 1

	// The owner's associated token accounts.
	Funded     solana.PublicKey // Token mint, FundedAmount
	Empty      solana.PublicKey // Token mint with freeze authority, empty
	Empty22    solana.PublicKey // Token-2022 mint, empty
	Frozen     solana.PublicKey // Freezable mint, frozen, empty (not closable)
	NFTAccount solana.PublicKey // NFT mint, amount 1
	Withheld   solana.PublicKey // TransferFee mint: received WithheldTransfer, fee withheld
	WrappedSOL solana.PublicKey // native mint, WrappedLamports wrapped
	IssuerFee  solana.PublicKey // issuer's account of the TransferFee mint
	FrozenMint Mint             // Token, 2 decimals, freeze authority: the mint of Frozen
}

// Amounts the fixture sets up.
const (
	FixtureLamports  = 10 * solana.LAMPORTS_PER_SOL
	FundedAmount     = 1_500_000
	WithheldTransfer = 250_000 // a 100 bps fee withholds 2_500 of it
	WithheldFee      = 2_500
	WrappedLamports  = 100_000_000
)

// NewWalletFixture sets up a WalletFixture with real transactions.
func (v *Validator) NewWalletFixture(t testing.TB) *WalletFixture {
	t.Helper()
	f := &WalletFixture{Owner: v.NewWallet(t, FixtureLamports), Issuer: v.NewWallet(t, FixtureLamports)}
	owner := f.Owner.PublicKey()
	f.Token = v.CreateMint(t, f.Issuer, MintSpec{Decimals: 6})
	f.Freezable = v.CreateMint(t, f.Issuer, MintSpec{Decimals: 6, Freeze: true})
	f.Token22 = v.CreateMint(t, f.Issuer, MintSpec{Program: solana.Token2022ProgramID, Decimals: 9})
	f.TransferFee = v.CreateMint(t, f.Issuer, MintSpec{Program: solana.Token2022ProgramID, Decimals: 6, TransferFeeBasisPoints: 100, MaxTransferFee: 1_000_000})
	f.NFT = v.CreateMint(t, f.Issuer, MintSpec{Decimals: 0})

	f.Funded = v.CreateATA(t, f.Owner, owner, f.Token)
	v.MintTo(t, f.Token, f.Funded, FundedAmount)
	f.Empty = v.CreateATA(t, f.Owner, owner, f.Freezable)
	f.Empty22 = v.CreateATA(t, f.Owner, owner, f.Token22)
	f.FrozenMint = v.CreateMint(t, f.Issuer, MintSpec{Decimals: 2, Freeze: true})
	f.Frozen = v.CreateATA(t, f.Owner, owner, f.FrozenMint)
	v.Freeze(t, f.FrozenMint, f.Frozen)

	f.NFTAccount = v.CreateATA(t, f.Owner, owner, f.NFT)
	v.MintTo(t, f.NFT, f.NFTAccount, 1)

	f.IssuerFee = v.CreateATA(t, f.Issuer, f.Issuer.PublicKey(), f.TransferFee)
	v.MintTo(t, f.TransferFee, f.IssuerFee, 10*WithheldTransfer)
	f.Withheld = v.CreateATA(t, f.Owner, owner, f.TransferFee)
	v.Transfer(t, f.Issuer, f.TransferFee, f.IssuerFee, f.Withheld, WithheldTransfer)

	f.WrappedSOL = v.WrapSOL(t, f.Owner, WrappedLamports)
	return f
}
