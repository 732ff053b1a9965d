// Package stake speaks to the stake program (Stake11111111111111111111111111111111111111,
// core BPF since SIMD-0196): the layout of stake accounts, the StakeHistory
// and Clock sysvars it reads, how much of a delegation is still effective
// in an epoch (activation.go), and the withdrawal that empties an inactive
// account. Layouts follow solana-stake-interface (state.rs,
// instruction.rs) and solana-clock: bincode, a u32 enum tag first.
//
// A stake account (200 bytes) is StakeStateV2: tag u32 (0 Uninitialized, 1
// Initialized, 2 Stake, 3 RewardsPool); then Meta: rent_exempt_reserve u64
// 4..12, authorized.staker 12..44, authorized.withdrawer 44..76,
// lockup.unix_timestamp i64 76..84, lockup.epoch u64 84..92,
// lockup.custodian 92..124; then, for Stake, the Delegation: voter 124..156,
// stake u64 156..164, activation_epoch 164..172, deactivation_epoch
// 172..180, the deprecated warmup_cooldown_rate f64 180..188;
// credits_observed 188..196, stake_flags 196.
package stake

import (
	"encoding/binary"
	"errors"

	"github.com/gagliardetto/solana-go"
)

// ProgramID is the stake program.
var ProgramID = solana.StakeProgramID

// Size is a stake account's data length.
const Size = 200

// WithdrawerOffset is where a getProgramAccounts memcmp finds the withdraw
// authority of an initialized or delegated stake account.
const WithdrawerOffset = 44

// The states of StakeStateV2 (its u32 tag).
const (
	StateUninitialized uint32 = 0
	StateInitialized   uint32 = 1
	StateStake         uint32 = 2
	StateRewardsPool   uint32 = 3
)

// NotDeactivated is the deactivation epoch of a delegation that was never
// deactivated (u64::MAX); as an activation epoch it marks a bootstrap stake.
const NotDeactivated = ^uint64(0)

// ErrNotStake is data that is not an initialized or delegated stake account.
var ErrNotStake = errors.New("stake: not an initialized or delegated stake account")

// Lockup bounds withdrawals: none before UnixTimestamp or Epoch unless the
// custodian signs.
type Lockup struct {
	UnixTimestamp int64
	Epoch         uint64
	Custodian     solana.PublicKey
}

// InForce reports whether l forbids a withdrawal at clock without its
// custodian's signature (Lockup::is_in_force with no custodian).
func (l Lockup) InForce(c Clock) bool {
	return l.UnixTimestamp > c.UnixTimestamp || l.Epoch > c.Epoch
}

// Delegation is a delegated account's stake.
type Delegation struct {
	Voter             solana.PublicKey
	Stake             uint64
	ActivationEpoch   uint64
	DeactivationEpoch uint64
}

// Account is an initialized or delegated stake account.
type Account struct {
	// State is StateInitialized or StateStake.
	State              uint32
	RentExemptReserve  uint64
	Staker, Withdrawer solana.PublicKey
	Lockup             Lockup
	// Delegation is set when State is StateStake.
	Delegation *Delegation
}

// Parse reads a stake account's data.
func Parse(data []byte) (Account, error) {
	if len(data) != Size {
		return Account{}, ErrNotStake
	}
	state := binary.LittleEndian.Uint32(data[0:4])
	if state != StateInitialized && state != StateStake {
		return Account{}, ErrNotStake
	}
	a := Account{
		State:             state,
		RentExemptReserve: binary.LittleEndian.Uint64(data[4:12]),
		Staker:            solana.PublicKeyFromBytes(data[12:44]),
		Withdrawer:        solana.PublicKeyFromBytes(data[44:76]),
		Lockup: Lockup{
			UnixTimestamp: int64(binary.LittleEndian.Uint64(data[76:84])),
			Epoch:         binary.LittleEndian.Uint64(data[84:92]),
			Custodian:     solana.PublicKeyFromBytes(data[92:124]),
		},
	}
	if state == StateStake {
		a.Delegation = &Delegation{
			Voter:             solana.PublicKeyFromBytes(data[124:156]),
			Stake:             binary.LittleEndian.Uint64(data[156:164]),
			ActivationEpoch:   binary.LittleEndian.Uint64(data[164:172]),
			DeactivationEpoch: binary.LittleEndian.Uint64(data[172:180]),
		}
	}
	return a, nil
}

// Staked is what the stake program's Withdraw holds back of a's lamports
// at clock, besides the rent-exempt reserve: the delegation's effective
// stake once the current epoch reached its deactivation epoch, all of it
// before (StakeStateV2::Stake in processor.rs's withdraw); 0 for an
// initialized account.
func (a Account) Staked(c Clock, h History) uint64 {
	d := a.Delegation
	if d == nil {
		return 0
	}
	if c.Epoch >= d.DeactivationEpoch {
		return d.Effective(c.Epoch, h)
	}
	return d.Stake
}

// Withdrawable says whether withdrawer may withdraw every lamport of a at
// clock: it is a's withdraw authority, nothing is staked any more (an
// initialized account, or a delegation fully deactivated), and no lockup is
// in force; reason says why not.
func (a Account) Withdrawable(withdrawer solana.PublicKey, c Clock, h History) (ok bool, reason string) {
	switch {
	case !a.Withdrawer.Equals(withdrawer):
		return false, "its withdraw authority is " + a.Withdrawer.String()
	case a.Staked(c, h) > 0:
		if a.Delegation.DeactivationEpoch == NotDeactivated {
			return false, "it is delegated: deactivate it first"
		}
		return false, "it is still cooling down: withdrawable once its stake is fully deactivated"
	case a.Lockup.InForce(c):
		return false, "a lockup is in force"
	}
	return true, ""
}
