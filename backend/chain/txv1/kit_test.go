package txv1

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/pkg/npmci"
)

var update = flag.Bool("update", false, "rewrite testdata/kit.golden.json with e2e/txv1kit (needs node)")

const goldenPath = "testdata/kit.golden.json"

// kitGoldens is what e2e/txv1kit/goldens.mjs prints.
type kitGoldens struct {
	Kit   string `json:"kit"`
	Cases []struct {
		Name        string   `json:"name"`
		Addresses   []string `json:"addresses"`
		Message     string   `json:"message"`
		Transaction string   `json:"transaction"`
	} `json:"cases"`
}

// seedKey is the ed25519 key whose seed is i repeated (goldens.mjs's key).
func seedKey(i byte) solana.PrivateKey {
	return solana.PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{i}, 32)))
}

// kitBlockhash is goldens.mjs's blockhash.
func kitBlockhash() solana.Hash {
	var h solana.Hash
	for i := range h {
		h[i] = byte(i*7 + 3)
	}
	return h
}

var (
	tokenProgram = solana.TokenProgramID
	memoProgram  = solana.MustPublicKeyFromBase58("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
)

func transferIx(from, to solana.PublicKey, lamports uint64) solana.Instruction {
	data := binary.LittleEndian.AppendUint64([]byte{2, 0, 0, 0}, lamports)
	return solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{
		solana.Meta(from).WRITE().SIGNER(), solana.Meta(to).WRITE(),
	}, data)
}

func closeIx(account, destination, owner solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(tokenProgram, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(), solana.Meta(destination).WRITE(), solana.Meta(owner).SIGNER(),
	}, []byte{9})
}

func memoIx(text string, signer solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(memoProgram, solana.AccountMetaSlice{solana.Meta(signer).SIGNER()}, []byte(text))
}

type kitCase struct {
	name         string
	signers      []solana.PrivateKey
	config       Config
	instructions []solana.Instruction
}

// kitCases are goldens.mjs's cases, in its order.
func kitCases() []kitCase {
	payer, receiver, cosigner, donation, fee := seedKey(1), seedKey(2), seedKey(3), seedKey(4), seedKey(5)
	var closes []solana.Instruction
	for i := range 58 {
		closes = append(closes, closeIx(seedKey(byte(10+i)).PublicKey(), payer.PublicKey(), payer.PublicKey()))
	}
	var transfer, all, sixty Config
	transfer.SetPriorityFee(10_000)
	transfer.SetComputeUnitLimit(300)
	all.SetPriorityFee(1<<40 + 123)
	all.SetComputeUnitLimit(1_400_000)
	all.SetLoadedAccountsDataSizeLimit(65_536)
	all.SetHeapSize(262_144)
	sixty.SetPriorityFee(58_000)
	sixty.SetComputeUnitLimit(58*3_000 + 2*150)
	sixty.SetLoadedAccountsDataSizeLimit(400_000)
	return []kitCase{
		{"transfer", []solana.PrivateKey{payer}, transfer,
			[]solana.Instruction{transferIx(payer.PublicKey(), receiver.PublicKey(), 1_000_000)}},
		{"all-config", []solana.PrivateKey{payer, cosigner}, all, []solana.Instruction{
			transferIx(payer.PublicKey(), receiver.PublicKey(), 42), memoIx("reclaim v1", cosigner.PublicKey()),
		}},
		{"no-config", []solana.PrivateKey{payer}, Config{}, closes[:3]},
		{"sixty-instructions", []solana.PrivateKey{payer}, sixty, append(append([]solana.Instruction(nil), closes...),
			transferIx(payer.PublicKey(), donation.PublicKey(), 1_234_567),
			transferIx(payer.PublicKey(), fee.PublicKey(), 89_012),
		)},
	}
}

// loadGoldens reads the golden file, first rewriting it (-update) or
// checking it against a fresh run of goldens.mjs where node and the pinned
// kit are at hand; CI=true installs them (npm ci) and fails without node.
func loadGoldens(t *testing.T) kitGoldens {
	t.Helper()
	stored, err := os.ReadFile(goldenPath)
	if err != nil && !*update {
		t.Fatalf("%v (run go test -update where node is installed)", err)
	}
	if fresh := runKit(t); fresh != nil {
		if *update {
			if err := os.WriteFile(goldenPath, fresh, 0o644); err != nil {
				t.Fatal(err)
			}
			stored = fresh
		} else if !bytes.Equal(fresh, stored) {
			t.Errorf("%s differs from what e2e/txv1kit/goldens.mjs prints with the pinned @solana/kit (rerun with -update if intended)", goldenPath)
		}
	} else {
		t.Logf("node or e2e/txv1kit/node_modules missing: comparing with %s only", goldenPath)
	}
	var g kitGoldens
	if err := json.Unmarshal(stored, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// runKit runs goldens.mjs: nil when node or its packages are missing,
// unless CI=true or -update, which install them or fail.
func runKit(t *testing.T) []byte {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "e2e", "txv1kit"))
	if err != nil {
		t.Fatal(err)
	}
	must := os.Getenv("CI") == "true" || *update
	if _, err := exec.LookPath("node"); err != nil {
		if must {
			t.Fatalf("node is needed to check the goldens against @solana/kit: %v", err)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if !npmci.Installed(dir) {
		if !must {
			return nil
		}
		if out, err := npmci.Ensure(ctx, dir); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	cmd := exec.CommandContext(ctx, "node", "goldens.mjs")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node goldens.mjs: %v\n%s", err, stderr.String())
	}
	return out
}

func b64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reorder returns m with its addresses in order, indexes remapped, after
// checking that order is a permutation that keeps every address in its
// class (signer, writable): kit and Compile differ only in that order.
func reorder(t *testing.T, m *Message, order []solana.PublicKey) *Message {
	t.Helper()
	if len(order) != len(m.AccountKeys) {
		t.Fatalf("kit has %d addresses, Compile %d", len(order), len(m.AccountKeys))
	}
	old := make(map[solana.PublicKey]int, len(order))
	for i, k := range m.AccountKeys {
		old[k] = i
	}
	out := *m
	out.AccountKeys = order
	remap := make([]uint8, len(order))
	for i, k := range order {
		j, ok := old[k]
		if !ok {
			t.Fatalf("kit's address %s is not in Compile's message", k)
		}
		if m.IsSigner(j) != m.IsSigner(i) || m.IsWritable(j) != m.IsWritable(i) {
			t.Fatalf("address %s is in another class in kit's message (%d) than in Compile's (%d)", k, i, j)
		}
		remap[j] = uint8(i)
	}
	out.Instructions = make([]Instruction, len(m.Instructions))
	for i, ix := range m.Instructions {
		accounts := make([]uint8, len(ix.Accounts))
		for j, a := range ix.Accounts {
			accounts[j] = remap[a]
		}
		out.Instructions[i] = Instruction{ProgramIDIndex: remap[ix.ProgramIDIndex], Accounts: accounts, Data: ix.Data}
	}
	return &out
}

// TestKitGoldens encodes goldens.mjs's messages in Go and compares them
// byte for byte with @solana/kit's, signs them to kit's exact transaction
// bytes, and decodes kit's bytes and encodes them again unchanged.
func TestKitGoldens(t *testing.T) {
	t.Parallel()
	g := loadGoldens(t)
	cases := kitCases()
	if len(g.Cases) != len(cases) {
		t.Fatalf("%s has %d cases, the test %d", goldenPath, len(g.Cases), len(cases))
	}
	if !strings.HasPrefix(g.Kit, "8.") {
		t.Fatalf("goldens written by @solana/kit %s, want 8.x", g.Kit)
	}
	for i, c := range cases {
		gc := g.Cases[i]
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if gc.Name != c.name {
				t.Fatalf("golden case %d is %q", i, gc.Name)
			}
			kitMsg, kitTx := b64(t, gc.Message), b64(t, gc.Transaction)
			m, err := Compile(c.signers[0].PublicKey(), kitBlockhash(), c.config, c.instructions...)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := m.Size(), len(kitMsg); got != want {
				t.Errorf("Size() = %d, kit's message has %d bytes", got, want)
			}
			if got, want := m.TransactionSize(), len(kitTx); got != want {
				t.Errorf("TransactionSize() = %d, kit's transaction has %d bytes", got, want)
			}
			order := make([]solana.PublicKey, len(gc.Addresses))
			for j, a := range gc.Addresses {
				order[j] = solana.MustPublicKeyFromBase58(a)
			}
			m = reorder(t, m, order)
			got, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, kitMsg) {
				t.Fatalf("message differs from kit's\n go: %x\nkit: %x", got, kitMsg)
			}
			tx := Transaction{Message: *m}
			if err := tx.Sign(c.signers...); err != nil {
				t.Fatal(err)
			}
			gotTx, err := tx.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gotTx, kitTx) {
				t.Fatalf("signed transaction differs from kit's\n go: %x\nkit: %x", gotTx, kitTx)
			}

			var dm Message
			if err := dm.UnmarshalBinary(kitMsg); err != nil {
				t.Fatal(err)
			}
			if again, err := dm.MarshalBinary(); err != nil || !bytes.Equal(again, kitMsg) {
				t.Fatalf("kit's message decoded and encoded again: %x, %v", again, err)
			}
			if dm.Config != c.config {
				t.Errorf("decoded config %+v, want %+v", dm.Config, c.config)
			}
			var dtx Transaction
			if err := dtx.UnmarshalBinary(kitTx); err != nil {
				t.Fatal(err)
			}
			if err := dtx.Verify(); err != nil {
				t.Fatal(err)
			}
			if again, err := dtx.MarshalBinary(); err != nil || !bytes.Equal(again, kitTx) {
				t.Fatalf("kit's transaction decoded and encoded again: %x, %v", again, err)
			}
		})
	}
}
