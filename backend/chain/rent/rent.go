// Package rent reads the cluster's Rent sysvar
// (SysvarRent111111111111111111111111111111111) and computes rent-exempt
// minimums from it as the on-chain programs do. The Metaplex programs return
// rent.minimum_balance(size) of the accounts they burn, never their lamports
// alone, so the refunds discovery promises come from these figures.
package rent

import (
	"encoding/binary"
	"math"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Address is the Rent sysvar account.
var Address = solana.SysVarRentPubkey

// SysvarOwner owns every sysvar account.
var SysvarOwner = solana.MustPublicKeyFromBase58("Sysvar1111111111111111111111111111111111111")

// AccountStorageOverhead is the bytes the runtime adds to every account's
// data length for rent.
const AccountStorageOverhead = 128

// Sysvar is the part of the Rent sysvar that minimum balances need.
type Sysvar struct {
	LamportsPerByteYear uint64
	ExemptionThreshold  float64
}

// Default is the Rent every cluster has had so far; used only when the
// cluster does not serve the sysvar account.
var Default = Sysvar{LamportsPerByteYear: 3480, ExemptionThreshold: 2}

// Parse reads the Rent sysvar account a (nil when it was not served):
// lamports_per_byte_year u64, exemption_threshold f64, burn_percent u8.
// An account that is missing, not a sysvar or too short reads as Default.
func Parse(a *rpc.Account) Sysvar {
	if r, ok := Read(a); ok {
		return r
	}
	return Default
}

// Read is Parse without the fallback: ok is false when a is not the Rent
// sysvar, and no figure should be trusted. Since SIMD-0194 the first field
// holds lamports per byte with a threshold of 1.0; the formula is the same.
func Read(a *rpc.Account) (r Sysvar, ok bool) {
	if a == nil || a.Data == nil || !a.Owner.Equals(SysvarOwner) {
		return Sysvar{}, false
	}
	d := a.Data.GetBinary()
	if len(d) < 17 {
		return Sysvar{}, false
	}
	return Sysvar{
		LamportsPerByteYear: binary.LittleEndian.Uint64(d[0:8]),
		ExemptionThreshold:  math.Float64frombits(binary.LittleEndian.Uint64(d[8:16])),
	}, true
}

// MinimumBalance is Rent::minimum_balance as the programs compute it:
// ((128 + size) * lamports_per_byte_year) as f64 * exemption_threshold,
// truncated.
func (r Sysvar) MinimumBalance(size uint64) uint64 {
	return uint64(float64((AccountStorageOverhead+size)*r.LamportsPerByteYear) * r.ExemptionThreshold)
}
