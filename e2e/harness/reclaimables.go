package harness

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	stakeprog "github.com/gagliardetto/solana-go/programs/stake"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/chain/nonce"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
)

// Fixtures of the other reclaimable accounts (issue 23): program buffers,
// durable nonce accounts and stake accounts, made with real transactions,
// and the validator's test-only methods that cut the rent and pass epochs.
// Buffer instructions come from backend/chain/loaderv3, the stake and
// nonce ones the service does not send from solana-go.

// Call makes a JSON-RPC call of the validator's (its test-only validator_*
// methods among them), params by position.
func (v *Validator) Call(ctx context.Context, out any, method string, params ...any) error {
	return v.RPC.RPCCallForInto(ctx, out, method, params)
}

// SetRent cuts (or raises) the Rent sysvar's lamports per byte, as a
// SIMD-0437 step does: validator_setRent. Accounts keep their lamports.
func (v *Validator) SetRent(t testing.TB, lamportsPerByte uint64) {
	t.Helper()
	var out struct{ LamportsPerByteYear uint64 }
	if err := v.Call(t.Context(), &out, "validator_setRent", map[string]any{"lamportsPerByteYear": lamportsPerByte}); err != nil || out.LamportsPerByteYear != lamportsPerByte {
		t.Fatalf("validator_setRent %d: %+v, %v", lamportsPerByte, out, err)
	}
}

// WarpEpochs moves the cluster to the first slot of the epoch n on
// (validator_warpEpochs) and returns that epoch.
func (v *Validator) WarpEpochs(t testing.TB, n int) uint64 {
	t.Helper()
	var out struct{ Epoch uint64 }
	if err := v.Call(t.Context(), &out, "validator_warpEpochs", map[string]any{"epochs": n}); err != nil {
		t.Fatalf("validator_warpEpochs %d: %v", n, err)
	}
	return out.Epoch
}

// NextBlockhash warps the cluster ten slots ahead, so that its blockhash is
// a new one, as time does on a cluster: a nonce account initialized or
// advanced under the current blockhash cannot be withdrawn whole until then
// (the system program's "nonce can only advance once per slot").
func (v *Validator) NextBlockhash(t testing.TB) {
	t.Helper()
	v.WarpSlots(t, 10)
}

// WarpSlots moves the cluster n slots ahead in one block
// (validator_warpSlot) and returns the slot it is at.
func (v *Validator) WarpSlots(t testing.TB, n uint64) uint64 {
	t.Helper()
	slot, err := v.RPC.GetSlot(t.Context(), rpc.CommitmentProcessed)
	if err != nil {
		t.Fatalf("getSlot: %v", err)
	}
	var out map[string]any
	if err := v.Call(t.Context(), &out, "validator_warpSlot", map[string]any{"slot": slot + n}); err != nil {
		t.Fatalf("validator_warpSlot %d: %v", slot+n, err)
	}
	return slot + n
}

// MinimumBalance is the cluster's rent-exempt minimum of size bytes now.
func (v *Validator) MinimumBalance(t testing.TB, size uint64) uint64 {
	t.Helper()
	m, err := v.RPC.GetMinimumBalanceForRentExemption(t.Context(), size, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("rent-exempt minimum of %d bytes: %v", size, err)
	}
	return m
}

func newKey(t testing.TB) solana.PrivateKey {
	t.Helper()
	key, err := solana.NewRandomPrivateKey()
	if err != nil {
		t.Fatalf("new key: %v", err)
	}
	return key
}

// CreateBuffer makes a buffer of the upgradeable loader holding n program
// bytes (written, as a deploy writes them), whose authority is authority,
// paid by it.
func (v *Validator) CreateBuffer(t testing.TB, authority solana.PrivateKey, n int) solana.PublicKey {
	t.Helper()
	buf, auth := newKey(t), authority.PublicKey()
	size := uint64(loaderv3.BufferMetadataSize + n)
	v.Send(t, authority, []solana.Instruction{
		system.NewCreateAccountInstruction(v.MinimumBalance(t, size), size, loaderv3.ProgramID, auth, buf.PublicKey()).Build(),
		loaderv3.InitializeBuffer(buf.PublicKey(), auth),
	}, buf)
	bytes := make([]byte, n)
	for i := range bytes {
		bytes[i] = byte(i)
	}
	for off := 0; off < n; off += 900 { // a write per transaction, as the CLI does
		v.Send(t, authority, []solana.Instruction{loaderv3.Write(buf.PublicKey(), auth, uint32(off), bytes[off:min(off+900, n)])})
	}
	return buf.PublicKey()
}

// CreateNonce makes a durable nonce account whose authority is authority,
// paid by it, and waits until the block that initialized it is confirmed
// (its whole balance cannot be withdrawn in that block).
func (v *Validator) CreateNonce(t testing.TB, authority solana.PrivateKey) solana.PublicKey {
	t.Helper()
	n, auth := newKey(t), authority.PublicKey()
	v.Send(t, authority, []solana.Instruction{
		system.NewCreateAccountInstruction(v.MinimumBalance(t, nonce.Size), nonce.Size, solana.SystemProgramID, auth, n.PublicKey()).Build(),
		system.NewInitializeNonceAccountInstruction(auth, n.PublicKey(), solana.SysVarRecentBlockHashesPubkey, solana.SysVarRentPubkey).Build(),
	}, n)
	return n.PublicKey()
}

// CreateStake makes a stake account of staked lamports above its reserve,
// whose staker and withdrawer are owner, paid by it; delegated, it is
// delegated to the cluster's vote account (active from the next epoch).
func (v *Validator) CreateStake(t testing.TB, owner solana.PrivateKey, staked uint64, delegated bool) solana.PublicKey {
	t.Helper()
	s, o := newKey(t), owner.PublicKey()
	ixs := []solana.Instruction{
		system.NewCreateAccountInstruction(v.MinimumBalance(t, stake.Size)+staked, stake.Size, stake.ProgramID, o, s.PublicKey()).Build(),
		stakeprog.NewInitializeInstruction(o, o, s.PublicKey()).Build(),
	}
	if delegated {
		ixs = append(ixs, stakeprog.NewDelegateStakeInstruction(v.VoteAccount(t), o, s.PublicKey()).Build())
	}
	v.Send(t, owner, ixs, s)
	return s.PublicKey()
}

// DeactivateStake deactivates a delegated stake account (its stake then
// cools down until the next epoch).
func (v *Validator) DeactivateStake(t testing.TB, staker solana.PrivateKey, account solana.PublicKey) {
	t.Helper()
	v.Send(t, staker, []solana.Instruction{stakeprog.NewDeactivateInstruction(account, staker.PublicKey()).Build()})
}

// VoteAccount is the cluster's (first) vote account.
func (v *Validator) VoteAccount(t testing.TB) solana.PublicKey {
	t.Helper()
	res, err := v.RPC.GetVoteAccounts(t.Context(), nil)
	if err != nil || len(res.Current) == 0 {
		t.Fatalf("vote accounts: %+v, %v", res, err)
	}
	return res.Current[0].VotePubkey
}

// Private starts a validator of the test's own, terminated when it ends:
// for tests that change the whole cluster (a rent cut, epochs passed),
// which would change what the shared validator's other tests see.
func Private(t testing.TB) *Validator {
	t.Helper()
	SetTestcontainersEnv()
	if err := dockerAvailable(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("e2e: Docker is not available: %v (CI=true: the e2e suite must run; start dockerd with .ci/docker.sh)", err)
		}
		t.Skipf("e2e: Docker is not available: %v; skipping (set CI=true to make this a failure)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ConfirmTimeout*4)
	defer cancel()
	v, err := Start(ctx, io.Discard)
	if err != nil {
		t.Fatalf("start a private validator: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := v.Terminate(ctx); err != nil {
			t.Errorf("terminate the private validator: %v", err)
		}
	})
	return v
}

// CreateLookupTable makes an address lookup table whose authority is
// authority, paid by it, at the slot the cluster answers getSlot with (as
// clients do), extended with n addresses, 27 a transaction.
func (v *Validator) CreateLookupTable(t testing.TB, authority solana.PrivateKey, n int) solana.PublicKey {
	t.Helper()
	auth := authority.PublicKey()
	table, slot, bump := v.newTableAddress(t, authority)
	v.Send(t, authority, []solana.Instruction{lookuptable.Create(table, auth, auth, slot, bump)})
	for off := 0; off < n; off += 27 {
		addrs := make([]solana.PublicKey, min(27, n-off))
		for i := range addrs {
			addrs[i] = newKey(t).PublicKey()
		}
		v.Send(t, authority, []solana.Instruction{lookuptable.Extend(table, auth, auth, addrs)})
	}
	return table
}

// newTableAddress is the address of a table authority has not created
// yet, at a slot getSlot answers: when authority already made one at that
// slot (the program then does nothing), a transfer to itself lands a block
// and the slot is asked again.
func (v *Validator) newTableAddress(t testing.TB, authority solana.PrivateKey) (solana.PublicKey, uint64, uint8) {
	t.Helper()
	ctx := context.Background()
	for range 50 {
		slot, err := v.RPC.GetSlot(ctx, rpc.CommitmentFinalized)
		if err != nil {
			t.Fatalf("get slot: %v", err)
		}
		table, bump, err := lookuptable.Address(authority.PublicKey(), slot)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.RPC.GetAccountInfo(ctx, table); errors.Is(err, rpc.ErrNotFound) {
			return table, slot, bump
		}
		v.Send(t, authority, []solana.Instruction{system.NewTransferInstruction(1, authority.PublicKey(), authority.PublicKey()).Build()})
	}
	t.Fatal("no new slot for a lookup table after 50 blocks")
	return solana.PublicKey{}, 0, 0
}

// DeactivateLookupTable deactivates table, authority signing, and gives
// the slot it landed in.
func (v *Validator) DeactivateLookupTable(t testing.TB, authority solana.PrivateKey, table solana.PublicKey) uint64 {
	t.Helper()
	return v.Send(t, authority, []solana.Instruction{lookuptable.Deactivate(table, authority.PublicKey())}).Slot
}

// CreateClosableMint makes a Token-2022 mint of supply 0 whose mint and
// close authority (MintCloseAuthority) are authority, paid by it.
func (v *Validator) CreateClosableMint(t testing.TB, authority solana.PrivateKey) solana.PublicKey {
	t.Helper()
	m, auth := newKey(t), authority.PublicKey()
	size := uint64(spltoken.ExtendedSize(spltoken.MintCloseAuthorityLen))
	v.Send(t, authority, []solana.Instruction{
		system.NewCreateAccountInstruction(v.MinimumBalance(t, size), size, solana.Token2022ProgramID, auth, m.PublicKey()).Build(),
		spltoken.InitializeMintCloseAuthority(m.PublicKey(), &auth),
		spltoken.InitializeMint2(solana.Token2022ProgramID, m.PublicKey(), 6, auth, nil),
	}, m)
	return m.PublicKey()
}
