package signedcheck

import (
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

func TestCheckAccepts(t *testing.T) {
	t.Parallel()
	b := built()
	d := allowed(t, signedBy(t, b...), fixtureNet)
	cases := []struct {
		name   string
		ixs    []solana.Instruction
		guards int
	}{
		{"as built", b, 0},
		// x402 #3318: [limit, price, LH, LH, LH, transfer, memo, LH].
		{"Phantom: three guards before ours, one after", append(insert(b, 2,
			assertLamports(wallet, 1_000_000), assertSystemOwned(wallet), assertTokenAmount(tokenAcct)),
			assertLamports(wallet, 1)), 4},
		{"Solflare: two guards appended", append(append([]solana.Instruction{}, b...),
			assertSystemOwned(wallet), assertLamports(wallet, 5_000)), 2},
		{"a guard between our instructions", insert(b, 3, assertTokenAmount(tokenAcct)), 1},
		{"a guard first of all", insert(b, 0, assertSystemOwned(wallet)), 1},
		{"a guard on an account not in the message", append(append([]solana.Instruction{}, b...), assertLamports(stranger, 0)), 1},
		{"AssertSysvarClock, without accounts", append(append([]solana.Instruction{}, b...), lighthouse([]byte{15, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4})), 1},
		{"a raised compute unit price", append([]solana.Instruction{b[0], computePrice(900_000)}, b[2:]...), 0},
		{"a new limit and price, moved after our instructions", append(append([]solana.Instruction{}, b[2:]...), computePrice(1), computeLimit(26_000)), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := Check(d, wallet, signedBy(t, c.ixs...))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got.Guards != c.guards {
				t.Fatalf("guards = %d, want %d", got.Guards, c.guards)
			}
		})
	}
}

func TestCheckRefuses(t *testing.T) {
	t.Parallel()
	b := built()
	guard := assertSystemOwned(wallet)
	d := allowed(t, signedBy(t, b...), fixtureNet)
	with := func(ixs ...solana.Instruction) []byte { return signedBy(t, ixs...) }
	cases := []struct {
		name string
		msg  []byte
		want string
	}{
		{"a System transfer to a stranger", with(append(append([]solana.Instruction{}, b...), guard, transfer(wallet, stranger, 1))...),
			"an instruction was added at index 6: System transfer"},
		{"a Memo", with(insert(b, 2, memo("hello"))...), "an instruction was added at index 2: Memo instruction"},
		{"an excess withdrawal to a stranger", with(insert(b, 3, solana.NewInstruction(solana.Token2022ProgramID, solana.AccountMetaSlice{
			solana.Meta(key("account")).WRITE(), solana.Meta(stranger).WRITE(), solana.Meta(wallet).SIGNER()}, []byte{38}))...),
			"an instruction was added at index 3: Token-2022 WithdrawExcessLamports"},
		{"a stake withdrawal to a stranger", with(insert(b, 3, solana.NewInstruction(solana.StakeProgramID, solana.AccountMetaSlice{
			solana.Meta(key("stake")).WRITE(), solana.Meta(stranger).WRITE(), solana.Meta(solana.SysVarClockPubkey),
			solana.Meta(solana.SysVarStakeHistoryPubkey), solana.Meta(wallet).SIGNER()}, []byte{4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}))...),
			"an instruction was added at index 3: Stake Withdraw"},
		{"a buffer closed to a stranger", with(insert(b, 3, solana.NewInstruction(solana.BPFLoaderUpgradeableProgramID, solana.AccountMetaSlice{
			solana.Meta(key("buffer")).WRITE(), solana.Meta(stranger).WRITE(), solana.Meta(wallet).SIGNER()}, []byte{5, 0, 0, 0}))...),
			"an instruction was added at index 3: BPF Upgradeable Loader Close"},
		{"a second Token instruction", with(insert(b, 3, closeAccount(key("another account")))...), "added at index 3: Token CloseAccount"},
		{"the same Token instruction twice", with(insert(b, 3, closeAccount(tokenAcct))...), "instruction 3 (Token CloseAccount) repeats a built instruction"},
		{"a Lighthouse memory write", with(append(append([]solana.Instruction{}, b...), memoryWrite())...), "instruction 5 is a Lighthouse MemoryWrite, which moves lamports"},
		{"a Lighthouse memory close", with(insert(b, 0, lighthouse([]byte{1, 0, 253}, wallet))...), "Lighthouse MemoryClose, which moves lamports"},
		{"AssertMerkleTreeAccount", with(append(append([]solana.Instruction{}, b...), lighthouse([]byte{16, 0}, stranger))...), "Lighthouse AssertMerkleTreeAccount; only Lighthouse assertions that read accounts"},
		{"an unknown Lighthouse instruction", with(append(append([]solana.Instruction{}, b...), lighthouse([]byte{18, 0}))...), "discriminator 18"},
		{"a Lighthouse instruction without a log level", with(append(append([]solana.Instruction{}, b...), lighthouse([]byte{5}))...), "without a log level"},
		{"a changed donation beside a valid guard", with(guard, b[0], b[1], b[2], transfer(wallet, donation, 203_927), b[4]),
			"instruction 4 (System transfer) changed its data"},
		{"a donation to another wallet beside a valid guard", with(b[0], b[1], b[2], transfer(wallet, stranger, 203_928), guard, b[4]),
			"instruction 3 (System transfer) changed its accounts"},
		{"a changed service fee", with(append(b[:4:4], transfer(wallet, treasury, 1))...), "instruction 4 (System transfer) changed its data"},
		{"the service fee left out", with(b[:4]...), "built instruction 2 of 3 (a System instruction) is missing"},
		{"our instructions reordered", with(b[0], b[1], b[2], b[4], guard, b[3]), "reordered: instruction 3 (System transfer) was built as built instruction 2, not 1"},
		{"another program in place of ours", with(b[0], b[1], memo("x"), b[3], b[4]), "instruction 2 is a Memo instruction where the transaction was built with a Token instruction"},
		{"a changed fee payer", compile(t, append([]solana.Instruction{guard}, b...), stranger, blockhash), "the fee payer changed"},
		{"a changed blockhash", compile(t, append([]solana.Instruction{guard}, b...), wallet, solana.Hash(key("other"))), "the recent blockhash changed"},
		{"a second signer", with(append(append([]solana.Instruction{}, b...), transferSignedBy(stranger))...), "requires 2 signatures"},
		{"a second compute unit price", with(append(append([]solana.Instruction{}, b...), computePrice(7))...), "instruction 5 is a second Compute Budget SetComputeUnitPrice"},
		{"a heap frame request", with(insert(b, 1, solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, []byte{1, 0, 0, 1, 0}))...),
			"added at index 1: Compute Budget RequestHeapFrame"},
		{"a guard on a writable new account", with(append(append([]solana.Instruction{}, b...),
			solana.NewInstruction(LighthouseProgramID, solana.AccountMetaSlice{solana.Meta(stranger).WRITE()}, []byte{5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4}))...),
			"account " + stranger.String() + " is writable, but no built instruction uses it"},
		{"a flag flipped in the header", flipLastWritable(t, with(append(append([]solana.Instruction{}, b...), guard)...)), "changed its accounts or their signer and writable flags"},
		{"an address lookup table", withLookup(t, with(append(append([]solana.Instruction{}, b...), guard)...)), "address lookup tables are not accepted"},
		{"garbage", []byte{1, 2, 3}, "cannot be read"},
		{"trailing bytes", append(with(b...), 0), "bytes after the message"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Check(d, wallet, c.msg)
			var r *MismatchError
			if !errors.As(err, &r) {
				t.Fatalf("got %v, want a refusal", err)
			}
			if !strings.Contains(r.Reason, c.want) {
				t.Fatalf("reason %q lacks %q", r.Reason, c.want)
			}
		})
	}
}

func TestCheckWithoutDigest(t *testing.T) {
	t.Parallel()
	_, err := Check(Digest{}, wallet, signedBy(t, built()...))
	if err == nil || !strings.Contains(err.Error(), "only the exact built message") {
		t.Fatalf("err = %v", err)
	}
}

func TestDigestLeavesOutComputeBudget(t *testing.T) {
	t.Parallel()
	b := built()
	d := digest(t, signedBy(t, b...))
	if len(d.Instructions) != 3 || d.Blockhash != blockhash.String() {
		t.Fatalf("digest %+v", d)
	}
	if other := digest(t, signedBy(t, b[2:]...)); other.Sum != d.Sum {
		t.Fatal("the compute budget changed the digest")
	}
	if other := digest(t, compile(t, b, stranger, blockhash)); other.Sum == d.Sum {
		t.Fatal("the fee payer did not change the digest")
	}
}

// transferSignedBy is a transfer that needs another signature.
func transferSignedBy(from solana.PublicKey) solana.Instruction {
	return transfer(from, wallet, 1)
}

// flipLastWritable makes the message's last writable unsigned key
// read-only, as a wallet editing the header would.
func flipLastWritable(t *testing.T, msg []byte) []byte {
	t.Helper()
	m, err := parse(msg)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte{}, msg...)
	out[3]++ // version byte, then the header: signers, read-only signed, read-only unsigned
	if out[3] != byte(m.numReadonlyUnsigned+1) {
		t.Fatal("header not where expected")
	}
	return out
}

// withLookup adds an address lookup table that loads nothing.
func withLookup(t *testing.T, msg []byte) []byte {
	t.Helper()
	if msg[len(msg)-1] != 0 {
		t.Fatal("message already has lookups")
	}
	out := append([]byte{}, msg[:len(msg)-1]...)
	out = append(out, 1)
	out = append(out, stranger[:]...)
	return append(out, 0, 0)
}
