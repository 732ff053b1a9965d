package txbuild

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// Build checks p, packs its items and builds, simulates and prices each
// transaction. An *assets.ItemError names what the request got wrong; other errors come
// from the cluster or the configuration.
func (b *Builder) Build(ctx context.Context, p Params) (Result, error) {
	return b.BuildWith(ctx, p, nil)
}

// BuildWith is Build with the reads pf started (nil: Build starts them);
// pf must have been made for p's wallet, transfers and priority.
//
// Round trips: the reads of pf go out together; then every transaction the
// compute table does not cover is simulated, all at once (a transaction
// whose fees pf could not ask, see fees.go, is priced first). A build of
// closes and transfers takes the one round trip of pf. Calls wait for slots of ctx's rpclimit.Limit.
func (b *Builder) BuildWith(ctx context.Context, p Params, pf *Prefetch) (Result, error) {
	ctx = rpclimit.Ensure(ctx)
	r, err := p.check()
	if err != nil {
		return Result{}, err
	}
	if pf == nil {
		pctx, cancel := context.WithCancel(ctx)
		pf = b.Prefetch(pctx, p, writtenBy(p.Items))
		defer func() { cancel(); pf.settle() }() // nothing outlives the call
	} else if !pf.matches(p) {
		return Result{}, fmt.Errorf("txbuild: prefetched for another wallet, transfers or priority")
	}
	if err := b.planCNFTs(ctx, r); err != nil {
		return Result{}, err
	}
	batches, err := r.pack(b.limits(r))
	if err != nil {
		return Result{}, err
	}
	for _, bt := range batches {
		// Refuse before waiting on the cluster when even the base fee eats the rebate.
		if _, err := r.split(bt).net(SignatureFee); err != nil {
			return Result{}, err
		}
	}
	if err := pf.wait(ctx); err != nil {
		return Result{}, err
	}
	pf.fees.holdItems(r.Items)
	txs, err := b.buildAll(ctx, r, batches, pf)
	if err != nil {
		return Result{}, err
	}
	return Result{Txs: txs, Blockhash: pf.latest.Blockhash, LastValidBlockHeight: pf.latest.LastValidBlockHeight}, nil
}

// buildAll builds the batches concurrently; the error returned is that of the
// first failing batch in order, so the same request always reports the same
// mistake. A cluster error cancels the others.
func (b *Builder) buildAll(ctx context.Context, r *request, batches []batch, pf *Prefetch) ([]Tx, error) {
	ctx, cancel := context.WithCancel(ctx)
	var asked []*feeQuery
	defer func() {
		cancel()
		for _, q := range asked {
			<-q.done
		}
	}()
	fees := make([][]*feeQuery, len(batches))
	if r.percentile > 0 {
		writable := make([][]solana.PublicKey, len(batches))
		var uncovered []int
		for i, bt := range batches {
			writable[i] = writableOf(r.Wallet, bt.items, r.frameOf(r.split(bt)))
			var ok bool
			if fees[i], ok = pf.fees.cover(writable[i]); !ok {
				uncovered = append(uncovered, i)
			}
		}
		for i, q := range b.groupFees(ctx, writable, uncovered) {
			fees[i] = []*feeQuery{q}
			if !slices.Contains(asked, q) {
				asked = append(asked, q)
			}
		}
	}
	refs, err := b.refs.draw(len(batches))
	if err != nil {
		return nil, err
	}
	txs := make([]Tx, len(batches))
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, bt := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if txs[i], errs[i] = b.build(ctx, r, bt, pf.rc, fees[i], pf.latest.Blockhash, refs[i]); errs[i] != nil {
				var e *assets.ItemError
				if errors.As(errs[i], &e) {
					return // a request error does not make the others fail
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return txs, nil
}

// frameOf is the frame of a transaction of money m, its compute limit at
// the maximum and no price yet.
func (r *request) frameOf(m money) frame {
	f := frame{v1: r.v1(), units: MaxComputeUnits, donation: m.donation, fee: m.fee}
	if r.DonationWallet != nil {
		f.donationTo = *r.DonationWallet
	}
	if r.Treasury != nil {
		f.treasury = *r.Treasury
	}
	return f
}

// build prices (from fees: none without a priority level), compiles and
// limits the transaction of one batch, with reference key ref: from the compute table when it knows
// every instruction, from a simulation otherwise.
func (b *Builder) build(ctx context.Context, r *request, bt batch, rc rentCheck, fees []*feeQuery, blockhash solana.Hash, ref solana.PublicKey) (Tx, error) {
	m := r.split(bt)
	if err := rc.check(r, m); err != nil {
		return Tx{}, err
	}
	f := r.frameOf(m)
	f.ref = ref
	if r.percentile > 0 {
		price, err := priceFrom(ctx, fees, r.percentile)
		if err != nil {
			return Tx{}, err
		}
		f.price = price
	}
	compile := b.compileV0
	if r.v1() {
		compile = b.compileV1
	}
	out, err := compile(ctx, r, blockhash, bt.items, f)
	if err != nil {
		return Tx{}, err
	}
	out.Includes, out.Burns, out.LedgerType = bt.items, burnsOf(bt.items), bt.ledgerType
	out.GrossRebate, out.RentRebate, out.DonationAmount, out.ServiceFee = m.gross, m.rent, m.donation, m.fee
	out.NetworkFee = SignatureFee*uint64(out.signers()) + out.PriorityFee
	out.Fees = out.NetworkFee + out.ServiceFee
	if out.NetRebate, err = m.net(out.NetworkFee); err != nil {
		return Tx{}, err
	}
	if err := out.serialize(r.maxSize()); err != nil {
		return Tx{}, err
	}
	return out, out.describe(f, b.allowance())
}

// compileV0 compiles the v0 transaction of items within f and sets its
// compute budget: f's price, and a limit from the compute table when it
// knows every instruction, from a simulation otherwise.
func (b *Builder) compileV0(ctx context.Context, r *request, blockhash solana.Hash, items []Selected, f frame) (Tx, error) {
	sim, owners, err := assemble(r.Wallet, blockhash, items, f)
	if err != nil {
		return Tx{}, err
	}
	// The table's units when it knows every instruction (costs.go);
	// otherwise the units a simulation consumed.
	consumed, known := TableUnits(sim, b.poller.PToken())
	if !known {
		if consumed, err = b.simulate(ctx, sim, owners, items); err != nil {
			return Tx{}, err
		}
	}
	// The transaction compiled, with its final limit: only the data of its
	// first instruction changes (compiling it again costs as much as the
	// first time did).
	units := b.guardedLimit(consumed)
	tx := &solana.Transaction{Signatures: slices.Clone(sim.Signatures), Message: sim.Message}
	tx.Message.Instructions = slices.Clone(sim.Message.Instructions)
	tx.Message.Instructions[0].Data = setComputeUnitLimit(units).DataBytes
	return Tx{Transaction: tx, ComputeUnits: units, ComputeUnitPrice: f.price, PriorityFee: signedcheck.PriorityFee(f.price, units)}, nil
}

// serialize fills Message, MessageHash and Base64, and guards the size packing
// promised: the final values encode to the same size as the placeholders.
func (t *Tx) serialize(limit int) error {
	msg, raw, err := t.encode()
	if err != nil {
		return err
	}
	if len(raw) > limit {
		return fmt.Errorf("txbuild: built a transaction of %d bytes, over the %d packing allowed", len(raw), limit)
	}
	t.Message, t.MessageHash, t.Base64 = msg, sha256.Sum256(msg), base64.StdEncoding.EncodeToString(raw)
	return nil
}

// encode is the message and the unsigned transaction of t, v0 or v1.
func (t *Tx) encode() (msg, raw []byte, err error) {
	if t.V1 != nil {
		if msg, err = t.V1.Message.MarshalBinary(); err == nil {
			raw, err = t.V1.MarshalBinary()
		}
	} else if msg, err = t.Transaction.Message.MarshalBinary(); err == nil {
		raw, err = t.Transaction.MarshalBinary()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("txbuild: serialize transaction: %w", err)
	}
	return msg, raw, nil
}

// money is a batch's gross rebate, the rent in it, and what goes to others
// out of it.
type money struct {
	items    []Selected
	gross    uint64
	rent     uint64
	donation uint64
	fee      uint64
}

// split computes the money of one transaction: the gross is what the
// included items' reclaims return (assets.Item.Lamports: a token account's
// lamports, a wrapped SOL account's balance and rent included; the refund of
// a Metaplex or Core burn), the rent the part of it that is rent
// (assets.Item.Rent), and the donation and the service fee are fractions of
// the rent alone: the wallet's own SOL that comes back is never shared.
func (r *request) split(bt batch) money {
	m := money{items: bt.items}
	for _, s := range bt.items {
		back := s.returns()
		m.gross += back
		m.rent += min(s.Item.Rent, back)
	}
	m.donation = floorFraction(m.rent, r.donation)
	m.fee = serviceFee(m.rent, r.ServiceFeeBPS)
	return m
}

// net is the change of the wallet's balance after networkFee: gross -
// networkFee - donation - fee. It must be positive, except when every item is
// a cNFT or a lookup table's deactivation: such a transaction returns nothing
// (gross, donation and service fee are 0) and costs the wallet exactly its
// network fee, which the caller chose to pay by selecting them.
func (m money) net(networkFee uint64) (int64, error) {
	cost, c1 := bits.Add64(networkFee, m.donation, 0)
	cost, c2 := bits.Add64(cost, m.fee, 0)
	if c1 == 0 && c2 == 0 && m.gross <= math.MaxInt64 && cost <= math.MaxInt64 {
		net := int64(m.gross) - int64(cost)
		if net > 0 || (m.returnsNothing() && m.gross == 0) {
			return net, nil
		}
	}
	e := requestError("reclaiming would cost more than it returns: %d lamports back, %d in network fee, %d donated, %d service fee",
		m.gross, networkFee, m.donation, m.fee)
	if len(m.items) == 1 {
		e.Address, e.Index = m.items[0].Item.Address.String(), m.items[0].at
	}
	return 0, e
}

// returnsNothing reports whether every item of the transaction is a cNFT
// or a lookup table deactivated.
func (m money) returnsNothing() bool {
	for _, s := range m.items {
		if s.Item.Type != assets.TypeCNFT && s.Action != assets.ActionDeactivate {
			return false
		}
	}
	return len(m.items) > 0
}

// returns is what reclaiming s moves to the wallet: the item's Lamports,
// but nothing for a lookup table's deactivation (its close, later, returns
// them).
func (s Selected) returns() uint64 {
	if s.Action == assets.ActionDeactivate {
		return 0
	}
	return s.Item.Lamports
}
