package stake_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gagliardetto/solana-go"
	stakeprog "github.com/gagliardetto/solana-go/programs/stake"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/ixtest"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
)

var key = ixtest.Key

const sol = 1_000_000_000

// TestWithdraw pins Withdraw to solana-stake-interface's withdraw (u32 4,
// the lamports; stake and recipient writable, Clock, StakeHistory, the
// withdrawer signing), which solana-go's encoder agrees with.
func TestWithdraw(t *testing.T) {
	t.Parallel()
	acct, to, auth := key("stake"), key("to"), key("withdrawer")
	w := ixtest.Writable
	ro := ixtest.ReadOnly
	ixtest.Run(t, []ixtest.Case{{
		Name: "Withdraw", Ix: stake.Withdraw(acct, to, auth, 5*sol+2_282_880),
		Program: solana.StakeProgramID, Data: "04000000" + "80c7282a01000000",
		Metas: []ixtest.Meta{w(acct), w(to), ro(solana.SysVarClockPubkey), ro(solana.SysVarStakeHistoryPubkey), {Key: auth, Signer: true}},
		Same:  stakeprog.NewWithdrawInstruction(5*sol+2_282_880, acct, to, auth).Build(),
	}})
}

// layout writes a StakeStateV2 as bincode does (solana-stake-interface
// state.rs): tag, Meta, and for a delegation the Stake and its flags.
func layout(state uint32, withdrawer solana.PublicKey, lockup stake.Lockup, d *stake.Delegation) []byte {
	b := binary.LittleEndian.AppendUint32(nil, state)
	b = binary.LittleEndian.AppendUint64(b, 2_282_880)
	staker := key("staker")
	b = append(append(b, staker[:]...), withdrawer[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(lockup.UnixTimestamp))
	b = binary.LittleEndian.AppendUint64(b, lockup.Epoch)
	b = append(b, lockup.Custodian[:]...)
	if d != nil {
		b = append(b, d.Voter[:]...)
		b = binary.LittleEndian.AppendUint64(b, d.Stake)
		b = binary.LittleEndian.AppendUint64(b, d.ActivationEpoch)
		b = binary.LittleEndian.AppendUint64(b, d.DeactivationEpoch)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(0.25))
		b = binary.LittleEndian.AppendUint64(b, 17) // credits_observed
		b = append(b, 0)                            // stake_flags
	}
	return append(b, make([]byte, stake.Size-len(b))...)
}

func TestParse(t *testing.T) {
	t.Parallel()
	w := key("withdrawer")
	d := &stake.Delegation{Voter: key("vote"), Stake: 5 * sol, ActivationEpoch: 3, DeactivationEpoch: 7}
	lockup := stake.Lockup{UnixTimestamp: 1_700_000_000, Epoch: 9, Custodian: key("custodian")}
	got, err := stake.Parse(layout(stake.StateStake, w, lockup, d))
	if err != nil || got.State != stake.StateStake || got.Withdrawer != w || got.Staker != key("staker") || got.RentExemptReserve != 2_282_880 ||
		got.Lockup != lockup || got.Delegation == nil || *got.Delegation != *d {
		t.Fatalf("Parse = %+v (%+v), %v", got, got.Delegation, err)
	}
	if init, err := stake.Parse(layout(stake.StateInitialized, w, stake.Lockup{}, nil)); err != nil || init.Delegation != nil || init.Withdrawer != w {
		t.Errorf("initialized: %+v, %v", init, err)
	}
	if got := layout(stake.StateInitialized, w, stake.Lockup{}, nil)[stake.WithdrawerOffset : stake.WithdrawerOffset+32]; solana.PublicKeyFromBytes(got) != w {
		t.Errorf("WithdrawerOffset reads %x", got)
	}
	for name, data := range map[string][]byte{
		"uninitialized": make([]byte, stake.Size),
		"rewards pool":  layout(stake.StateRewardsPool, w, stake.Lockup{}, nil),
		"short":         layout(stake.StateStake, w, lockup, d)[:199],
	} {
		if _, err := stake.Parse(data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// The local validator's cluster in its stake test
// (backend/localvalidator/test/reclaimables.test.js): a bootstrap stake of 1,000,000
// SOL, and 5 SOL delegated in epoch 0, deactivated in epoch 1.
var (
	boot    = uint64(1_000_000 * sol)
	history = stake.History{
		0: {Effective: boot, Activating: 5 * sol},
		1: {Effective: boot + 5*sol, Deactivating: 5 * sol},
	}
	delegated = stake.Delegation{Stake: 5 * sol, ActivationEpoch: 0, DeactivationEpoch: 1}
)

func TestEffective(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		d       stake.Delegation
		h       stake.History
		epoch   uint64
		want    uint64
		comment string
	}{
		{"activating in its activation epoch", delegated, history, 0, 0, ""},
		{"effective the epoch after", delegated, history, 1, 5 * sol, "its deactivation epoch: all of it deactivating, still effective"},
		{"fully deactivated one epoch on", delegated, history, 2, 0, ""},
		{"bootstrap", stake.Delegation{Stake: boot, ActivationEpoch: stake.NotDeactivated, DeactivationEpoch: stake.NotDeactivated}, history, 9, boot, ""},
		{"deactivated in its activation epoch", stake.Delegation{Stake: 5 * sol, ActivationEpoch: 4, DeactivationEpoch: 4}, nil, 4, 0, ""},
		{"no history: fully deactivated", stake.Delegation{Stake: 5 * sol, ActivationEpoch: 1, DeactivationEpoch: 3}, nil, 4, 0, ""},
		{"not deactivated, no history: fully effective", stake.Delegation{Stake: 5 * sol, ActivationEpoch: 1, DeactivationEpoch: stake.NotDeactivated}, nil, 4, 5 * sol, ""},
		// Rate-limited: the cluster has 1,000 effective, 600 of it
		// deactivating in epoch 10; this account's 300 gets half of 9% of
		// 1,000 (45) the first epoch, then, the cluster at 910 with 200
		// deactivating, all of 9% of 910 (81.9, truncated: 81 of its 255).
		{"cooling down: first epoch", stake.Delegation{Stake: 300, ActivationEpoch: stake.NotDeactivated, DeactivationEpoch: 10},
			stake.History{10: {Effective: 1000, Deactivating: 600}, 11: {Effective: 910, Deactivating: 255}}, 11, 255, ""},
		{"cooling down: second epoch", stake.Delegation{Stake: 300, ActivationEpoch: stake.NotDeactivated, DeactivationEpoch: 10},
			stake.History{10: {Effective: 1000, Deactivating: 600}, 11: {Effective: 910, Deactivating: 255}}, 12, 174, ""},
		// At least one lamport leaves each epoch.
		{"at least one a epoch", stake.Delegation{Stake: 3, ActivationEpoch: stake.NotDeactivated, DeactivationEpoch: 10},
			stake.History{10: {Effective: 5, Deactivating: 3}}, 11, 2, ""},
		// Warmup, rate-limited: 9% of 1,000 shared by 300 activating of which
		// this account is 100: 30.
		{"warming up", stake.Delegation{Stake: 100, ActivationEpoch: 20, DeactivationEpoch: stake.NotDeactivated},
			stake.History{20: {Effective: 1000, Activating: 300}}, 21, 30, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.d.Effective(tc.epoch, tc.h); got != tc.want {
				t.Errorf("Effective(%d) = %d, want %d", tc.epoch, got, tc.want)
			}
		})
	}
}

func TestWithdrawable(t *testing.T) {
	t.Parallel()
	w := key("withdrawer")
	at := func(epoch uint64) stake.Clock { return stake.Clock{Epoch: epoch, UnixTimestamp: 1_800_000_000} }
	active := delegated
	active.DeactivationEpoch = stake.NotDeactivated
	parse := func(data []byte) stake.Account {
		a, err := stake.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	cases := []struct {
		name  string
		a     stake.Account
		by    solana.PublicKey
		clock stake.Clock
		ok    bool
	}{
		{"initialized, never delegated", parse(layout(stake.StateInitialized, w, stake.Lockup{}, nil)), w, at(0), true},
		{"fully deactivated", parse(layout(stake.StateStake, w, stake.Lockup{}, &delegated)), w, at(2), true},
		{"deactivating", parse(layout(stake.StateStake, w, stake.Lockup{}, &delegated)), w, at(1), false},
		{"active", parse(layout(stake.StateStake, w, stake.Lockup{}, &active)), w, at(5), false},
		{"another withdrawer", parse(layout(stake.StateStake, w, stake.Lockup{}, &delegated)), key("other"), at(2), false},
		{"locked until epoch 3", parse(layout(stake.StateStake, w, stake.Lockup{Epoch: 3}, &delegated)), w, at(2), false},
		{"locked until a time", parse(layout(stake.StateInitialized, w, stake.Lockup{UnixTimestamp: 1_900_000_000}, nil)), w, at(2), false},
		{"lockup passed", parse(layout(stake.StateStake, w, stake.Lockup{Epoch: 2, UnixTimestamp: 1_700_000_000}, &delegated)), w, at(2), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ok, reason := tc.a.Withdrawable(tc.by, tc.clock, history)
			if ok != tc.ok || ok != (reason == "") {
				t.Errorf("Withdrawable = %v %q, want %v", ok, reason, tc.ok)
			}
		})
	}
}

func sysvar(data []byte) *rpc.Account {
	return &rpc.Account{Owner: stake.SysvarOwner, Lamports: 1_169_280, Data: rpc.DataBytesOrJSONFromBytes(data)}
}

func TestSysvars(t *testing.T) {
	t.Parallel()
	// The Clock at the local validator's epoch 2 (slot 864,000).
	c := binary.LittleEndian.AppendUint64(nil, 864_000)
	c = binary.LittleEndian.AppendUint64(c, 1_700_000_000)
	c = binary.LittleEndian.AppendUint64(c, 2)
	c = binary.LittleEndian.AppendUint64(c, 3)
	c = binary.LittleEndian.AppendUint64(c, 1_700_000_345)
	clock, ok := stake.ParseClock(sysvar(c))
	if !ok || clock != (stake.Clock{Slot: 864_000, Epoch: 2, UnixTimestamp: 1_700_000_345}) {
		t.Errorf("ParseClock = %+v, %v", clock, ok)
	}
	if _, ok := stake.ParseClock(&rpc.Account{Owner: solana.SystemProgramID, Data: rpc.DataBytesOrJSONFromBytes(c)}); ok {
		t.Error("a clock not owned by the sysvar program")
	}
	// StakeHistory as the validator's test reads it: newest first.
	h := binary.LittleEndian.AppendUint64(nil, 2)
	for _, e := range [][4]uint64{{1, boot + 5*sol, 0, 5 * sol}, {0, boot, 5 * sol, 0}} {
		for _, v := range e {
			h = binary.LittleEndian.AppendUint64(h, v)
		}
	}
	got, ok := stake.ParseHistory(sysvar(h))
	if !ok || len(got) != 2 || got[0] != history[0] || got[1] != history[1] {
		t.Errorf("ParseHistory = %+v, %v", got, ok)
	}
	if _, ok := stake.ParseHistory(sysvar(h[:40])); ok {
		t.Error("a history shorter than its length says")
	}
}
