package signedcheck

import (
	"fmt"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// v1Marker follows digestVersion in the canonical form of a v1 message
// (txv1), so a v1 ticket never matches a v0 message of the same
// instructions, nor a v0 ticket a v1 message; v0 digests are unchanged.
const v1Marker = "txv1\x00"

// parseV1 reads a v1 message (first byte txv1.VersionByte) as txv1 checks
// it, and its compute budget: the config's compute-unit limit, and the
// price of its total priority fee on that limit (floor(fee × 1e6 /
// limit)). A v1 message states its budget in its config: a Compute Budget
// instruction in it sets nothing (SIMD-0385 processes it as a no-op).
func parseV1(b []byte) (*message, budget, uint64, error) {
	var v txv1.Message
	if err := v.UnmarshalBinary(b); err != nil {
		return nil, budget{}, 0, err
	}
	m := &message{
		versioned: true, version: 1,
		numSigners: int(v.Header.NumRequiredSignatures), numReadonlySigned: int(v.Header.NumReadonlySignedAccounts),
		numReadonlyUnsigned: int(v.Header.NumReadonlyUnsignedAccounts),
		keys:                v.AccountKeys, blockhash: v.RecentBlockhash, instructions: make([]instruction, len(v.Instructions)),
	}
	for i, ix := range v.Instructions {
		accounts := make([]int, len(ix.Accounts))
		for j, a := range ix.Accounts {
			accounts[j] = int(a)
		}
		m.instructions[i] = instruction{program: int(ix.ProgramIDIndex), accounts: accounts, data: ix.Data}
	}
	c := v.Config
	if c.Mask&txv1.MaskComputeUnitLimit == 0 {
		return nil, budget{}, 0, fmt.Errorf("v1 message sets no compute unit limit")
	}
	fee := c.PriorityFeeLamports
	return m, budget{units: c.ComputeUnitLimit, price: maxPriceFor(fee, c.ComputeUnitLimit), explicit: true}, fee, nil
}
