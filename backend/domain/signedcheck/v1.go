package signedcheck

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// A v1 message (SIMD-0385) sets its compute budget in a config mask, not
// with Compute Budget instructions, and its priority fee is a total in
// lamports, not a price per unit. The rule is v0's, read off the mask:
//   - the compute-unit limit and the total priority fee are the wallet's to
//     set, raise or drop within the ticket's bounds, as SetComputeUnitLimit
//     and SetComputeUnitPrice are in v0 (a dropped limit counts as the
//     runtime's largest default, as in v0); the fee's price per unit
//     (ceil(fee × 1e6 / limit)) is held to the price cap;
//   - the loaded accounts data size limit and the heap size are never the
//     wallet's, as SetLoadedAccountsDataSizeLimit and RequestHeapFrame are
//     never accepted in v0: their bits and values stay as built (V1Config);
//   - a Compute Budget instruction in a v1 message is an instruction like
//     any other: one the build put there is covered by the digest, one a
//     wallet adds is refused as added (the mask is the budget there, and
//     what such an instruction does beside it is no budget the bounds
//     describe);
//   - the version itself stays: a ticket built v0 takes no v1 message, and
//     the other way round.

// V1Config is what a ticket states of a v1 build's config mask beyond the
// compute-unit limit and the priority fee: the values a wallet must leave
// as built. Its presence says the transaction was built v1.
type V1Config struct {
	// Mask holds the built mask's loaded-data and heap bits (3 and 4).
	Mask uint32 `json:"m,omitempty"`
	// LoadedAccountsDataSizeLimit and HeapSize are their values (0 when
	// their bits are unset).
	LoadedAccountsDataSizeLimit uint32 `json:"ld,omitempty"`
	HeapSize                    uint32 `json:"hp,omitempty"`
}

// fixedBits are the mask bits a wallet may not change.
const fixedBits = txv1.MaskLoadedAccountsDataSizeLimit | txv1.MaskHeapSize

// fixedOf is c's part a wallet may not change.
func fixedOf(c *txv1.Config) V1Config {
	return V1Config{Mask: uint32(c.Mask & fixedBits), LoadedAccountsDataSizeLimit: c.LoadedAccountsDataSizeLimit, HeapSize: c.HeapSize}
}

// isV1 reports whether b is a v1 message: its first byte is 0x81. A
// legacy or v0 transaction never starts so (129 signatures do not fit
// 1,232 bytes), and a legacy message starts with its signer count.
func isV1(b []byte) bool { return len(b) > 0 && b[0] == txv1.VersionByte }

// parseV1 reads a v1 message with txv1's decoder, which refuses what a
// node's sanitizer refuses (a bad mask, duplicates, indexes out of range,
// more than 64 addresses, trailing bytes), into the form Check reads.
func parseV1(b []byte) (*message, error) {
	var v txv1.Message
	if err := v.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	h := v.Header
	m := &message{
		versioned: true, version: 1, config: &v.Config,
		numSigners: int(h.NumRequiredSignatures), numReadonlySigned: int(h.NumReadonlySignedAccounts), numReadonlyUnsigned: int(h.NumReadonlyUnsignedAccounts),
		keys: v.AccountKeys, blockhash: v.RecentBlockhash, instructions: make([]instruction, len(v.Instructions)),
	}
	for i, ix := range v.Instructions {
		accounts := make([]int, len(ix.Accounts))
		for j, a := range ix.Accounts {
			accounts[j] = int(a)
		}
		m.instructions[i] = instruction{program: int(ix.ProgramIDIndex), accounts: accounts, data: ix.Data}
	}
	return m, nil
}

// versionName names a message's version as a person reads it.
func (m *message) versionName() string {
	switch {
	case m.v1():
		return "v1"
	case m.versioned:
		return "v0"
	}
	return "legacy"
}

// checkV1 refuses a message whose version is not the built one, and a v1
// message whose fixed config values differ from the built ones.
func (d Digest) checkV1(m *message) error {
	switch {
	case d.V1 != nil && !m.v1():
		return refuse("the transaction was built as a v1 transaction and the signed message is %s; sign the transaction as built", m.versionName())
	case d.V1 == nil && m.v1():
		return refuse("the signed message is a v1 transaction but the transaction was built as v0; sign the transaction as built")
	case d.V1 == nil:
		return nil
	}
	got, want := fixedOf(m.config), *d.V1
	bit := func(b txv1.ConfigMask) bool { return uint32(b)&got.Mask != uint32(b)&want.Mask }
	switch {
	case bit(txv1.MaskLoadedAccountsDataSizeLimit) || got.LoadedAccountsDataSizeLimit != want.LoadedAccountsDataSizeLimit:
		return refuse("the config mask's loaded accounts data size limit changed: %s instead of the built %s; a wallet may change only the compute-unit limit and the priority fee",
			maskValue(got.Mask, txv1.MaskLoadedAccountsDataSizeLimit, got.LoadedAccountsDataSizeLimit), maskValue(want.Mask, txv1.MaskLoadedAccountsDataSizeLimit, want.LoadedAccountsDataSizeLimit))
	case bit(txv1.MaskHeapSize) || got.HeapSize != want.HeapSize:
		return refuse("the config mask's heap size changed: %s instead of the built %s; a wallet may change only the compute-unit limit and the priority fee",
			maskValue(got.Mask, txv1.MaskHeapSize, got.HeapSize), maskValue(want.Mask, txv1.MaskHeapSize, want.HeapSize))
	}
	return nil
}

// maskValue writes a config value, or "unset" when its bit is not in mask.
func maskValue(mask uint32, bit txv1.ConfigMask, v uint32) string {
	if mask&uint32(bit) == 0 {
		return "unset"
	}
	return group(uint64(v)) + " bytes"
}

// v1Form is what a v1 message adds to the canonical form: its version
// byte and fixed config values, so that a sum never matches across
// versions. (An array, so that sum's hash stays on the stack.)
func (m *message) v1Form() [13]byte {
	f := fixedOf(m.config)
	var b [13]byte
	b[0] = txv1.VersionByte
	binary.LittleEndian.PutUint32(b[1:], f.Mask)
	binary.LittleEndian.PutUint32(b[5:], f.LoadedAccountsDataSizeLimit)
	binary.LittleEndian.PutUint32(b[9:], f.HeapSize)
	return b
}

// v1Budget is a v1 message's compute budget from its config mask.
func (m *message) v1Budget() budget {
	c := m.config
	var b budget
	if c.Mask&txv1.MaskComputeUnitLimit != 0 {
		b.units, b.explicit = c.ComputeUnitLimit, true
	} else {
		b.units = uint32(min(uint64(len(m.instructions))*defaultUnitsPerInstruction, maxComputeUnits))
	}
	if c.Mask&txv1.MaskPriorityFee != 0 {
		b.fee = c.PriorityFeeLamports
	}
	b.total = true
	b.price = pricePerUnit(b.fee, b.units)
	return b
}

// pricePerUnit is the price, in micro-lamports per compute unit, that a
// total priority fee of fee lamports comes to on units: ceil(fee × 1e6 /
// units), so that PriorityFee(pricePerUnit(fee, units), units) >= fee; the
// largest uint64 when units is 0 and fee is not, or on overflow.
func pricePerUnit(fee uint64, units uint32) uint64 {
	if fee == 0 {
		return 0
	}
	if units == 0 {
		return math.MaxUint64
	}
	hi, lo := bits.Mul64(fee, microLamportsPerLamport)
	lo, carry := bits.Add64(lo, uint64(units)-1, 0)
	hi += carry
	if hi >= uint64(units) {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, uint64(units))
	return q
}
