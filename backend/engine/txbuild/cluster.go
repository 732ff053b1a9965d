package txbuild

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// rentCheck knows which transfer recipients do not exist on chain yet. A
// transfer that creates an account must leave it rent-exempt (the rent-exempt
// minimum of a 0-byte account, 890,880 lamports under today's rent) or the
// runtime rejects the whole transaction. Every transaction of a build is
// checked on its own, because any of them may land first, or alone.
type rentCheck struct {
	missing map[solana.PublicKey]bool
	minimum uint64
}

// recipients reads keys, the donation wallet and the treasury (recipientsOf),
// with one getMultipleAccounts; the rent-exempt minimum is read only when one
// of them is missing.
func (b *Builder) recipients(ctx context.Context, keys []solana.PublicKey) (rentCheck, error) {
	rc := rentCheck{missing: map[solana.PublicKey]bool{}}
	if len(keys) == 0 {
		return rc, nil
	}
	res, err := rpclimit.Call(ctx, func(ctx context.Context) (*rpc.GetMultipleAccountsResult, error) {
		return b.rpc.GetMultipleAccountsWithOpts(ctx, keys, &rpc.GetMultipleAccountsOpts{
			Commitment: rpc.CommitmentConfirmed, Encoding: solana.EncodingBase64,
		})
	})
	if err != nil {
		return rc, fmt.Errorf("txbuild: read transfer recipients: %w", err)
	}
	if res == nil || len(res.Value) != len(keys) {
		return rc, fmt.Errorf("txbuild: read transfer recipients: %d accounts for %d keys", lenAccounts(res), len(keys))
	}
	for i, acc := range res.Value {
		if acc == nil {
			rc.missing[keys[i]] = true
		}
	}
	if len(rc.missing) > 0 {
		rc.minimum, err = rpclimit.Call(ctx, func(ctx context.Context) (uint64, error) {
			return b.rpc.GetMinimumBalanceForRentExemption(ctx, 0, rpc.CommitmentConfirmed)
		})
		if err != nil {
			return rc, fmt.Errorf("txbuild: rent-exempt minimum: %w", err)
		}
	}
	return rc, nil
}

func lenAccounts(res *rpc.GetMultipleAccountsResult) int {
	if res == nil {
		return 0
	}
	return len(res.Value)
}

// check refuses a transaction whose transfers would create an account below
// the rent-exempt minimum.
func (rc rentCheck) check(r *request, m money) error {
	type transfer struct {
		what   string
		amount uint64
	}
	to := map[solana.PublicKey]transfer{}
	if m.donation > 0 {
		to[*r.DonationWallet] = transfer{"donation", m.donation}
	}
	if m.fee > 0 {
		t := to[*r.Treasury]
		t.amount += m.fee
		t.what = strings.TrimPrefix(t.what+" and service fee", " and ")
		to[*r.Treasury] = t
	}
	for key, t := range to {
		if rc.missing[key] && t.amount < rc.minimum {
			return requestError("the %s transfer of %d lamports to %s would fail: that account does not exist yet, and a transfer creating it must be at least %d lamports (the rent-exempt minimum); select more items in one transaction",
				t.what, t.amount, key, rc.minimum)
		}
	}
	return nil
}

// simulate runs tx (its compute limit at the maximum) on the cluster's
// current state, without signatures and with the latest blockhash, and
// returns the compute units it consumed. A failing transaction is an *assets.ItemError
// naming the item whose instruction failed, when one did, and the reason.
func (b *Builder) simulate(ctx context.Context, tx *solana.Transaction, owners []int, items []Selected) (uint64, error) {
	return simulated(ctx, func(ctx context.Context) (*rpc.SimulateTransactionResponse, error) {
		return b.rpc.SimulateTransactionWithOpts(ctx, tx, simulateOpts)
	}, owners, items)
}

// simulateOpts simulate a transaction as built: unsigned, on the newest
// blockhash, at commitment processed.
var simulateOpts = &rpc.SimulateTransactionOpts{SigVerify: false, ReplaceRecentBlockhash: true, Commitment: rpc.CommitmentProcessed}

// simulated is the units a simulation by call consumed; owners and items
// name the item whose instruction failed.
func simulated(ctx context.Context, call func(context.Context) (*rpc.SimulateTransactionResponse, error), owners []int, items []Selected) (uint64, error) {
	out, err := rpclimit.Call(ctx, call)
	if err != nil {
		return 0, fmt.Errorf("txbuild: simulate: %w", err)
	}
	if out == nil || out.Value == nil {
		return 0, fmt.Errorf("txbuild: simulate: empty result")
	}
	if out.Value.Err != nil {
		return 0, simulationError(out.Value, owners, items)
	}
	if out.Value.UnitsConsumed == nil || *out.Value.UnitsConsumed == 0 {
		return 0, fmt.Errorf("txbuild: simulate: no unitsConsumed in the result")
	}
	return *out.Value.UnitsConsumed, nil
}

// Transaction errors that have a plainer explanation.
var plainErrors = map[string]string{
	"AccountNotFound":         "the wallet has no SOL to pay the network fee",
	"InsufficientFundsForFee": "the wallet has too little SOL to pay the network fee",
	"BlockhashNotFound":       "the cluster has no recent blockhash to simulate with",
}

func simulationError(res *rpc.SimulateTransactionResult, owners []int, items []Selected) *assets.ItemError {
	reason, _ := json.Marshal(res.Err)
	msg := string(reason)
	if s, ok := res.Err.(string); ok {
		msg = s
		if plain, ok := plainErrors[s]; ok {
			msg = plain + " (" + s + ")"
		}
	}
	var notes []string
	for _, line := range res.Logs {
		if strings.Contains(line, "Error") || strings.Contains(line, "failed") {
			notes = append(notes, line)
		}
	}
	e := requestError("the transaction would fail: %s", msg)
	if len(notes) > 0 {
		e.Reason += ": " + strings.Join(notes, "; ")
	}
	if i, ok := failedInstruction(res.Err); ok && i < len(owners) && owners[i] >= 0 {
		e.Address, e.Index = items[owners[i]].Item.Address.String(), items[owners[i]].at
	}
	return e
}

// failedInstruction reads the instruction index of an InstructionError, as
// JSON decodes it: {"InstructionError": [index, detail]}.
func failedInstruction(err any) (int, bool) {
	m, ok := err.(map[string]any)
	if !ok {
		return 0, false
	}
	pair, ok := m["InstructionError"].([]any)
	if !ok || len(pair) != 2 {
		return 0, false
	}
	idx, ok := pair[0].(float64)
	if !ok || idx < 0 {
		return 0, false
	}
	return int(idx), true
}
