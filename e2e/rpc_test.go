package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// parsedAccount is the jsonParsed shape of a token account or mint.
type parsedAccount struct {
	Program string `json:"program"`
	Parsed  struct {
		Type string `json:"type"`
		Info struct {
			Mint        string `json:"mint"`
			Owner       string `json:"owner"`
			State       string `json:"state"`
			IsNative    bool   `json:"isNative"`
			Decimals    int    `json:"decimals"`
			Supply      string `json:"supply"`
			TokenAmount struct {
				Amount         string `json:"amount"`
				Decimals       int    `json:"decimals"`
				UIAmountString string `json:"uiAmountString"`
			} `json:"tokenAmount"`
			Extensions []struct {
				Extension string         `json:"extension"`
				State     map[string]any `json:"state"`
			} `json:"extensions"`
		} `json:"info"`
	} `json:"parsed"`
	Space int `json:"space"`
}

type keyedAccount struct {
	Pubkey  string `json:"pubkey"`
	Account struct {
		Lamports uint64          `json:"lamports"`
		Owner    string          `json:"owner"`
		Data     json.RawMessage `json:"data"`
		Space    int             `json:"space"`
	} `json:"account"`
}

func tokenAccountsByOwner(t *testing.T, v *harness.Validator, owner solana.PublicKey, program solana.PublicKey, encoding string) map[string]keyedAccount {
	t.Helper()
	var out struct {
		Context struct{ Slot uint64 } `json:"context"`
		Value   []keyedAccount        `json:"value"`
	}
	err := v.RPC.RPCCallForInto(context.Background(), &out, "getTokenAccountsByOwner", []any{
		owner.String(), map[string]any{"programId": program.String()}, map[string]any{"encoding": encoding, "commitment": "confirmed"},
	})
	if err != nil {
		t.Fatalf("getTokenAccountsByOwner: %v", err)
	}
	m := map[string]keyedAccount{}
	for _, a := range out.Value {
		m[a.Pubkey] = a
	}
	return m
}

func parsed(t *testing.T, a keyedAccount) parsedAccount {
	t.Helper()
	var p parsedAccount
	if err := json.Unmarshal(a.Account.Data, &p); err != nil {
		t.Fatalf("jsonParsed data of %s: %v (%s)", a.Pubkey, err, a.Account.Data)
	}
	return p
}

func extension(p parsedAccount, name string) map[string]any {
	for _, e := range p.Parsed.Info.Extensions {
		if e.Extension == name {
			if e.State == nil {
				return map[string]any{}
			}
			return e.State
		}
	}
	return nil
}

// TestWalletFixtureThroughRPC reads a wallet fixture back the way the reclaim service
// will: getTokenAccountsByOwner (jsonParsed and base64, both token programs),
// getMultipleAccounts for mints, getTokenAccountBalance and getTokenSupply.
func TestWalletFixtureThroughRPC(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	f := v.NewWalletFixture(t)
	owner := f.Owner.PublicKey()
	ctx := context.Background()

	tok := tokenAccountsByOwner(t, v, owner, solana.TokenProgramID, "jsonParsed")
	t22 := tokenAccountsByOwner(t, v, owner, solana.Token2022ProgramID, "jsonParsed")
	if len(tok) != 5 || len(t22) != 2 {
		t.Fatalf("token accounts: %d Token, %d Token-2022; want 5 and 2", len(tok), len(t22))
	}
	funded := parsed(t, tok[f.Funded.String()])
	if funded.Program != "spl-token" || funded.Parsed.Type != "account" || funded.Parsed.Info.TokenAmount.Amount != "1500000" ||
		funded.Parsed.Info.TokenAmount.UIAmountString != "1.5" || funded.Parsed.Info.Owner != owner.String() || funded.Space != 165 {
		t.Errorf("funded account parsed as %+v", funded)
	}
	if p := parsed(t, tok[f.Frozen.String()]); p.Parsed.Info.State != "frozen" {
		t.Errorf("frozen account state = %q", p.Parsed.Info.State)
	}
	if p := parsed(t, tok[f.NFTAccount.String()]); p.Parsed.Info.TokenAmount.Amount != "1" || p.Parsed.Info.TokenAmount.Decimals != 0 {
		t.Errorf("NFT account = %+v", p.Parsed.Info.TokenAmount)
	}
	wsol := tok[f.WrappedSOL.String()]
	if p := parsed(t, wsol); !p.Parsed.Info.IsNative || p.Parsed.Info.TokenAmount.Amount != "100000000" || wsol.Account.Lamports != harness.TokenAccountRent+harness.WrappedLamports {
		t.Errorf("wrapped SOL = %+v, lamports %d", p.Parsed.Info, wsol.Account.Lamports)
	}
	withheld := parsed(t, t22[f.Withheld.String()])
	if withheld.Program != "spl-token-2022" || withheld.Parsed.Info.TokenAmount.Amount != "247500" {
		t.Errorf("withheld account = %+v", withheld.Parsed.Info)
	}
	if st := extension(withheld, "transferFeeAmount"); st == nil || st["withheldAmount"] != float64(harness.WithheldFee) {
		t.Errorf("transferFeeAmount = %v, want withheldAmount %d", st, harness.WithheldFee)
	}
	if extension(withheld, "immutableOwner") == nil {
		t.Error("Token-2022 ATA without immutableOwner")
	}

	raw := tokenAccountsByOwner(t, v, owner, solana.TokenProgramID, "base64")
	var b64 []string
	if err := json.Unmarshal(raw[f.Funded.String()].Account.Data, &b64); err != nil || len(b64) != 2 || b64[1] != "base64" {
		t.Fatalf("base64 data = %s (%v)", raw[f.Funded.String()].Account.Data, err)
	}

	mints, err := v.RPC.GetMultipleAccountsWithOpts(ctx, []solana.PublicKey{f.NFT.Address, f.TransferFee.Address, solana.NewWallet().PublicKey()},
		&rpc.GetMultipleAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	if len(mints.Value) != 3 || mints.Value[2] != nil {
		t.Fatalf("getMultipleAccounts = %+v", mints.Value)
	}
	if n := len(mints.Value[0].Data.GetBinary()); n != spltoken.MintSize {
		t.Errorf("NFT mint data is %d bytes", n)
	}
	if n := len(mints.Value[1].Data.GetBinary()); n != spltoken.ExtendedSize(spltoken.TransferFeeConfigLen) {
		t.Errorf("transfer-fee mint data is %d bytes", n)
	}

	bal, err := v.RPC.GetTokenAccountBalance(ctx, f.Funded, rpc.CommitmentConfirmed)
	if err != nil || bal.Value.Amount != "1500000" || bal.Value.Decimals != 6 {
		t.Errorf("getTokenAccountBalance = %+v, %v", bal, err)
	}
	supply, err := v.RPC.GetTokenSupply(ctx, f.NFT.Address, rpc.CommitmentConfirmed)
	if err != nil || supply.Value.Amount != "1" || supply.Value.Decimals != 0 {
		t.Errorf("getTokenSupply = %+v, %v", supply, err)
	}
}

// TestHarvestWithheldThenClose empties a Token-2022 transfer-fee account, shows it
// cannot be closed while fees are withheld (preflight -32002), harvests them to the
// mint with a v0 transaction and closes it, with exact balances.
func TestHarvestWithheldThenClose(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	f := v.NewWalletFixture(t)
	owner := f.Owner.PublicKey()
	ctx := context.Background()
	fm := f.TransferFee

	v.Send(t, f.Owner, []solana.Instruction{spltoken.BurnChecked(fm.Program, f.Withheld, fm.Address, owner, harness.WithheldTransfer-harness.WithheldFee, fm.Decimals)})

	tx, err := v.BuildTx(ctx, true, f.Owner, []solana.Instruction{spltoken.CloseAccount(fm.Program, f.Withheld, owner, owner)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.RPC.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	var rpcErr *jsonrpc.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 || !strings.Contains(rpcErr.Message, "Error processing Instruction 0") {
		t.Fatalf("close with withheld fees: %v, want preflight failure -32002", err)
	}

	v.SendV0(t, f.Owner, []solana.Instruction{spltoken.HarvestWithheldTokensToMint(fm.Address, f.Withheld)})
	var mint struct {
		Value struct {
			Data parsedAccount `json:"data"`
		} `json:"value"`
	}
	if err := v.RPC.RPCCallForInto(ctx, &mint, "getAccountInfo", []any{fm.Address.String(), map[string]any{"encoding": "jsonParsed", "commitment": "confirmed"}}); err != nil {
		t.Fatal(err)
	}
	if st := extension(mint.Value.Data, "transferFeeConfig"); st == nil || st["withheldAmount"] != float64(harness.WithheldFee) {
		t.Errorf("mint transferFeeConfig after harvest = %v", st)
	}

	info, err := v.RPC.GetAccountInfoWithOpts(ctx, f.Withheld, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	before := v.Balance(t, owner)
	landed := v.SendV0(t, f.Owner, []solana.Instruction{spltoken.CloseAccount(fm.Program, f.Withheld, owner, owner)})
	if got, want := v.Balance(t, owner)-before, info.Value.Lamports-landed.Fee; got != want {
		t.Errorf("balance rose by %d, want %d", got, want)
	}
}

// TestSimulateV0AndPriorityFees simulates an unsigned v0 transaction (sigVerify false,
// replaceRecentBlockhash) for its compute units, then sends it signed with a compute
// unit price and checks the exact fee and getRecentPrioritizationFees.
func TestSimulateV0AndPriorityFees(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	ctx := context.Background()
	payer := v.NewWallet(t, solana.LAMPORTS_PER_SOL)
	dest := solana.NewWallet().PublicKey()
	ixs := []solana.Instruction{
		computebudget.NewSetComputeUnitLimitInstruction(10_000).Build(),
		computebudget.NewSetComputeUnitPriceInstruction(1_000).Build(),
		system.NewTransferInstruction(5_000_000, payer.PublicKey(), dest).Build(),
	}

	unsigned, err := solana.NewTransaction(ixs, solana.Hash{}, solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	unsigned.Message.SetVersion(solana.MessageVersionV0)
	unsigned.Signatures = make([]solana.Signature, unsigned.Message.Header.NumRequiredSignatures)
	sim, err := v.RPC.SimulateTransactionWithOpts(ctx, unsigned, &rpc.SimulateTransactionOpts{
		SigVerify: false, ReplaceRecentBlockhash: true, Commitment: rpc.CommitmentProcessed,
	})
	if err != nil {
		t.Fatal(err)
	}
	if sim.Value.Err != nil || sim.Value.UnitsConsumed == nil || *sim.Value.UnitsConsumed == 0 || len(sim.Value.Logs) == 0 {
		t.Fatalf("simulate = %+v", sim.Value)
	}
	t.Logf("simulated: %d compute units, logs %q", *sim.Value.UnitsConsumed, sim.Value.Logs)

	before := v.Balance(t, payer.PublicKey())
	landed := v.SendV0(t, payer, ixs)
	// 5000 per signature + ceil(1000 micro-lamports * 10000 CU / 1e6) = 5010.
	if landed.Fee != 5_010 {
		t.Errorf("fee = %d, want 5010", landed.Fee)
	}
	if got := before - v.Balance(t, payer.PublicKey()); got != 5_000_000+landed.Fee {
		t.Errorf("payer paid %d, want %d", got, 5_000_000+landed.Fee)
	}
	fees, err := v.RPC.GetRecentPrioritizationFees(ctx, solana.PublicKeySlice{dest})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range fees {
		if f.Slot == landed.Slot && f.PrioritizationFee == 1_000 {
			found = true
		}
	}
	if !found {
		t.Errorf("getRecentPrioritizationFees has no fee 1000 at slot %d: %+v", landed.Slot, fees)
	}

	maxVersion := uint64(0)
	got, err := v.RPC.GetTransaction(ctx, landed.Signature, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &maxVersion})
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 0 || got.Meta.Fee != landed.Fee || got.Meta.PreBalances[0]-got.Meta.PostBalances[0] != 5_000_000+landed.Fee {
		t.Errorf("getTransaction: version %v, meta %+v", got.Version, got.Meta)
	}
	if _, err := v.RPC.GetTransaction(ctx, landed.Signature, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed}); err == nil {
		t.Error("getTransaction of a v0 transaction without maxSupportedTransactionVersion did not fail")
	}
}
