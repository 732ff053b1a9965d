package txbuild

import (
	"fmt"

	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

// Wallet guards: Phantom and Solflare add Lighthouse assertions to the
// transactions they sign (see package signedcheck). The bytes they take are
// kept free by Params.HeadroomBytes; the compute units they consume by the
// Builder's guard headroom, added to every transaction's limit. A wallet may
// also change the compute budget, within the bounds each ticket states
// (signedcheck.Allowance): the limit up to the guard headroom more, the
// price up to WithMaxComputeUnitPrice, the fee never past half the net
// rebate.

// WithGuardHeadroomUnits adds units to the compute unit limit of every
// transaction, beyond its simulated need and margin, for the assertions a
// wallet may add; packing keeps them free under the 1.4M maximum.
func WithGuardHeadroomUnits(units uint32) Option {
	return func(b *Builder) { b.guardUnits = units }
}

// WithMaxComputeUnitPrice is the highest compute unit price, in
// micro-lamports, a wallet may set when it signs, if the built price is
// lower (default signedcheck.DefaultMaxPrice).
func WithMaxComputeUnitPrice(microLamports uint64) Option {
	return func(b *Builder) { b.maxPrice = microLamports }
}

// allowance is what a wallet may raise of the compute budget.
func (b *Builder) allowance() signedcheck.Allowance {
	return signedcheck.Allowance{HeadroomUnits: b.guardUnits, MaxPrice: b.maxPrice}
}

// limits are the packing limits of r's transactions: the bytes less the
// caller's headroom (and in v1 the addresses less the guards', v1.go), and
// an estimate whose limit (computeLimit, then the guard headroom) stays
// within the maximum.
func (b *Builder) limits(r *request) limits {
	l := defaultLimits(r.HeadroomBytes)
	if r.v1() {
		l = limitsV1(r.HeadroomBytes)
	}
	l.units = (MaxComputeUnits-1_000-uint64(min(b.guardUnits, MaxComputeUnits-1_000)))*10/11 - 1
	return l
}

// guardedLimit is the compute unit limit of a transaction that consumed
// units in simulation: its margin, then the guard headroom, capped at the
// maximum.
func (b *Builder) guardedLimit(consumed uint64) uint32 {
	return uint32(min(uint64(computeLimit(consumed))+uint64(b.guardUnits), MaxComputeUnits))
}

// describe fills t.Summary from its serialized message and frame: the digest
// signedcheck checks signed messages against, with the bounds a of its
// compute budget, and the transfer recipients.
func (t *Tx) describe(f frame, a signedcheck.Allowance) error {
	d, err := signedcheck.DigestOf(t.Message)
	if err != nil {
		return fmt.Errorf("txbuild: %w", err)
	}
	d.Allow(a, t.NetRebate)
	t.Summary = ticket.TxSummary{Digest: d}
	if f.donation > 0 {
		t.Summary.DonationWallet = f.donationTo.String()
	}
	if f.fee > 0 {
		t.Summary.Treasury = f.treasury.String()
	}
	return nil
}
