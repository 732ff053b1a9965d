package assets

import (
	"encoding/binary"
	"math"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// rentSysvar is the cluster's Rent sysvar: what the Metaplex programs use to
// decide how many lamports a burn returns.
type rentSysvar struct {
	lamportsPerByteYear uint64
	exemptionThreshold  float64
}

// defaultRent is the Rent every cluster has had so far; used only when the
// cluster does not serve the sysvar account.
var defaultRent = rentSysvar{lamportsPerByteYear: 3480, exemptionThreshold: 2}

// sysvarOwner owns every sysvar account.
var sysvarOwner = solana.MustPublicKeyFromBase58("Sysvar1111111111111111111111111111111111111")

// accountStorageOverhead is the bytes the runtime adds to every account's
// data length for rent.
const accountStorageOverhead = 128

// parseRent reads SysvarRent111...: lamports_per_byte_year u64,
// exemption_threshold f64, burn_percent u8.
func parseRent(a *rpc.Account) rentSysvar {
	d := data(a)
	if a == nil || !a.Owner.Equals(sysvarOwner) || len(d) < 17 {
		return defaultRent
	}
	return rentSysvar{
		lamportsPerByteYear: binary.LittleEndian.Uint64(d[0:8]),
		exemptionThreshold:  math.Float64frombits(binary.LittleEndian.Uint64(d[8:16])),
	}
}

// minimumBalance is Rent::minimum_balance as the programs compute it:
// ((128 + size) * lamports_per_byte_year) as f64 * exemption_threshold,
// truncated.
func (r rentSysvar) minimumBalance(size uint64) uint64 {
	return uint64(float64((accountStorageOverhead+size)*r.lamportsPerByteYear) * r.exemptionThreshold)
}
