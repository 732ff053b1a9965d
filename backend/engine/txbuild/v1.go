package txbuild

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
)

// Version-1 builds (Params.Version 1, SIMD-0385): the same items, money
// and reference key as v0, packed into transactions of at most 4,096 bytes
// and 64 addresses (package txv1), keeping GuardAddressesV1 addresses and
// Params.HeadroomBytes bytes free for the guards a wallet adds. A v1
// message carries no SetComputeUnitLimit or SetComputeUnitPrice: its config
// sets the compute-unit limit (the same as v0's: need, margin and guard
// headroom), the loaded-accounts-data-size limit (64 MiB, the runtime's
// maximum and v0's default, as v0's reference instruction sets it) and,
// with a priority level, the total priority fee in lamports:
// ceil(price × limit / 1e6) at the price a v0 build of the same batch
// would set, so its network fee is 5,000 per signature plus that fee, as
// v0's. The reference key rides, read-only, on the first transfer (the
// donation's or the service fee's), as Solana Pay's references do, which
// saves the Compute Budget program's address; a build without transfers
// keeps v0's reference instruction, which a v1 runtime processes as a
// successful no-op (SIMD-0385). Either way the ticket's digest covers it.

// Versions a build takes.
const (
	Version0 = 0
	Version1 = 1
)

// GuardAddressesV1 are the addresses a v1 build keeps free for wallet
// guards: the Lighthouse program and one account outside the message
// (Phantom asserted one such account; its other assertions and Solflare's
// are on accounts the message holds, see Config.GuardHeadroomBytes).
const GuardAddressesV1 = 2

// v1 reports whether r builds v1 transactions.
func (r *request) v1() bool { return r.Version == Version1 }

// maxSize is the most bytes a transaction of r may take, the guards'
// headroom left free.
func (r *request) maxSize() int {
	if r.v1() {
		return txv1.MaxTransactionSize - r.HeadroomBytes
	}
	return MaxTransactionSize - r.HeadroomBytes
}

// limitsV1 are the packing limits of a v1 transaction but its units.
func limitsV1(headroom int) limits {
	l := defaultLimits(headroom)
	l.bytes, l.keys = txv1.MaxTransactionSize-headroom, txv1.MaxAddresses-GuardAddressesV1
	return l
}

// newSizer starts the count of one of r's transactions, paid by its
// wallet.
func (r *request) newSizer() *sizer {
	if !r.v1() {
		return newSizer(r.Wallet)
	}
	c := r.configV1(1, MaxComputeUnits)
	return newSizerV1(r.Wallet, 4*bits.OnesCount32(uint32(c.Mask)))
}

// configV1 is the config of one of r's v1 transactions at a price (in
// micro-lamports, used with a priority level) and a compute-unit limit.
func (r *request) configV1(price uint64, units uint32) txv1.Config {
	var c txv1.Config
	c.SetComputeUnitLimit(units)
	c.SetLoadedAccountsDataSizeLimit(maxLoadedAccountsDataSize)
	if r.percentile > 0 {
		c.SetPriorityFee(signedcheck.PriorityFee(price, units))
	}
	return c
}

// compileV1 compiles the v1 transaction of items within f (f.v1: no
// compute budget instructions) and sets its config: f's price as a total
// fee, and the limit from the compute table when it knows every
// instruction, from a simulation otherwise.
func (b *Builder) compileV1(ctx context.Context, r *request, blockhash solana.Hash, items []Selected, f frame) (Tx, error) {
	ixs, owners := instructionsOf(r.Wallet, items, f)
	m, err := txv1.Compile(r.Wallet, blockhash, r.configV1(f.price, MaxComputeUnits), ixs...)
	if err != nil {
		return Tx{}, fmt.Errorf("txbuild: compile v1: %w", err)
	}
	consumed, known := tableUnits(m.AccountKeys, len(m.Instructions), func(i int) (int, []byte) {
		return int(m.Instructions[i].ProgramIDIndex), m.Instructions[i].Data
	}, b.poller.PToken())
	if !known {
		if consumed, err = b.simulateV1(ctx, m, owners, items); err != nil {
			return Tx{}, err
		}
	}
	units := b.guardedLimit(consumed)
	m.Config = r.configV1(f.price, units)
	tx := &txv1.Transaction{Message: *m, Signatures: make([]solana.Signature, m.Header.NumRequiredSignatures)}
	return Tx{Version: Version1, V1: tx, ComputeUnits: units, ComputeUnitPrice: f.price, PriorityFee: m.Config.PriorityFeeLamports}, nil
}

// rawSimulator simulates a transaction given as bytes; *rpc.Client is one.
// A v1 transaction is no *solana.Transaction, so simulating one needs it.
type rawSimulator interface {
	SimulateRawTransactionWithOpts(ctx context.Context, tx []byte, opts *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error)
}

// simulateV1 is simulate of a v1 message (its limit at the maximum).
func (b *Builder) simulateV1(ctx context.Context, m *txv1.Message, owners []int, items []Selected) (uint64, error) {
	sim, ok := b.rpc.(rawSimulator)
	if !ok {
		return 0, fmt.Errorf("txbuild: the cluster client cannot simulate v1 transactions")
	}
	raw, err := (&txv1.Transaction{Message: *m, Signatures: make([]solana.Signature, m.Header.NumRequiredSignatures)}).MarshalBinary()
	if err != nil {
		return 0, fmt.Errorf("txbuild: simulate v1: %w", err)
	}
	return simulated(ctx, func(ctx context.Context) (*rpc.SimulateTransactionResponse, error) {
		return sim.SimulateRawTransactionWithOpts(ctx, raw, simulateOpts)
	}, owners, items)
}
