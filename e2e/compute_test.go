package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// Issue 25: compute-unit limits from the table of costs per instruction
// kind (backend/engine/txbuild/costs.go), checked against the cluster.

// tableWallet is a wallet holding one item of every kind whose instructions
// the compute table knows, each with the type it is selected as.
type tableWallet struct {
	owner solana.PrivateKey
	items []solana.PublicKey
	types []assets.ItemType
	kinds []string // what each item is, for the logs
}

func (w *tableWallet) add(kind string, typ assets.ItemType, k solana.PublicKey) {
	w.items, w.types, w.kinds = append(w.items, k), append(w.types, typ), append(w.kinds, kind)
}

// newTableWallet makes, on v, empty accounts of SPL Token (p-token) and of
// Token-2022 without and with extensions (a transfer-fee account), wrapped
// SOL, burns of both programs (Token-2022 with withheld fees to harvest),
// excess rent on both programs (lamports sent to accounts with a balance),
// a program buffer, a nonce account and an initialized stake account.
func newTableWallet(t *testing.T, v *harness.Validator) *tableWallet {
	t.Helper()
	f := v.NewWalletFixture(t)
	o := f.Owner.PublicKey()
	w := &tableWallet{owner: f.Owner}
	t22 := v.CreateMints(t, f.Issuer, harness.MintSpec{Program: solana.Token2022ProgramID, Decimals: 9}, 2)
	feeMint := v.CreateMint(t, f.Issuer, harness.MintSpec{Program: solana.Token2022ProgramID, Decimals: 6, TransferFeeBasisPoints: 100, MaxTransferFee: 1_000_000})
	atas := v.CreateATAs(t, f.Owner, o, append(slices.Clone(t22), feeMint))
	v.MintToEach(t, t22, atas[:2], 5_000)
	v.Send(t, f.Owner, []solana.Instruction{
		system.NewTransferInstruction(1_000_000, o, f.Funded).Build(),
		system.NewTransferInstruction(1_000_000, o, atas[1]).Build(),
	})

	w.add("close, SPL Token", assets.TypeEmptyAccount, f.Empty)
	w.add("close, Token-2022", assets.TypeEmptyAccount, f.Empty22)
	w.add("close, Token-2022 with a transfer fee", assets.TypeEmptyAccount, atas[2])
	w.add("close, wrapped SOL", assets.TypeEmptyAccount, f.WrappedSOL)
	w.add("burn and close, SPL Token", assets.TypeNFT, f.NFTAccount)
	w.add("burn and close, Token-2022", assets.TypeToken, atas[0])
	w.add("harvest, burn and close, Token-2022", assets.TypeToken, f.Withheld)
	w.add("withdraw excess, SPL Token", assets.TypeExcessRent, f.Funded)
	w.add("withdraw excess, Token-2022", assets.TypeExcessRent, atas[1])
	w.add("buffer close", assets.TypeProgramBuffer, v.CreateBuffer(t, f.Owner, 2_000))
	w.add("nonce withdraw", assets.TypeNonceAccount, v.CreateNonce(t, f.Owner))
	w.add("stake withdraw", assets.TypeStakeAccount, v.CreateStake(t, f.Owner, solana.LAMPORTS_PER_SOL, false))
	v.NextBlockhash(t) // a nonce initialized in this slot cannot be withdrawn in it
	return w
}

// selected resolves w's items as their types, each with its one action.
func (w *tableWallet) selected(t *testing.T, v *harness.Validator) []txbuild.Selected {
	t.Helper()
	items, err := assets.NewDiscoverer(v.RPC, nil).ResolveAs(t.Context(), w.owner.PublicKey(), w.items, w.types)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	sel := make([]txbuild.Selected, len(items))
	for i, it := range items {
		if len(it.Actions) != 1 {
			t.Fatalf("%s %s offers actions %v", w.kinds[i], it.Address, it.Actions)
		}
		sel[i] = txbuild.Selected{Item: it, Action: it.Actions[0]}
	}
	return sel
}

// instructionUnits reads what each top-level instruction consumed from a
// transaction's logs, in order; builtins log no figure (-1).
func instructionUnits(logs []string) []int64 {
	var out []int64
	depth := 0
	for _, line := range logs {
		if m := logInvoke.FindStringSubmatch(line); m != nil {
			if depth, _ = strconv.Atoi(m[2]); depth == 1 {
				out = append(out, -1)
			}
			continue
		}
		if m := logConsumed.FindStringSubmatch(line); m != nil && depth == 1 {
			out[len(out)-1], _ = strconv.ParseInt(m[2], 10, 64)
			continue
		}
		if logEnd.MatchString(line) {
			depth--
		}
	}
	return out
}

// TestComputeTableCoversSimulation builds one transaction per kind the
// compute table knows, as the service does (donation, service fee, medium
// priority, the guard headroom, a Poller that sees p-token on this
// cluster), simulates each as built and checks, instruction by
// instruction, that the table's cost is at least what the instruction
// consumed and at most 5,000 units more (not wastefully high); then lands
// them all with the table's limits and checks what each consumed on chain
// is within its limit.
func TestComputeTableCoversSimulation(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	ctx := context.Background()
	w := newTableWallet(t, v)
	sel := w.selected(t, v)
	owner := w.owner.PublicKey()
	donation := v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()
	treasury := v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()

	poller := txbuild.NewPoller(v.RPC, time.Minute, treasury)
	poller.Poll(ctx)
	if !poller.PToken() {
		t.Fatal("the Poller does not see p-token on the e2e validator (its Tokenkeg is p-token)")
	}
	const guardUnits = 6_000
	b := txbuild.NewBuilder(v.RPC, txbuild.WithPoller(poller), txbuild.WithGuardHeadroomUnits(guardUnits))
	var txs []txbuild.Tx
	for i, s := range sel {
		res, err := b.Build(ctx, txbuild.Params{
			Wallet: owner, Items: []txbuild.Selected{s}, DonationPercentage: 0.1, DonationWallet: &donation,
			ServiceFeeBPS: 500, Treasury: &treasury, PriorityLevel: txbuild.PriorityMedium,
		})
		if err != nil {
			t.Fatalf("build %s: %v", w.kinds[i], err)
		}
		txs = append(txs, res.Txs...)
	}

	type seen struct {
		table, most uint64
		kinds       []string
	}
	byKind := map[string]*seen{}
	var rows strings.Builder
	for i, tx := range txs {
		need, known := txbuild.TableUnits(tx.Transaction, true)
		if !known {
			t.Fatalf("%s: the table does not know its instructions", w.kinds[i])
		}
		sim, err := v.RPC.SimulateTransactionWithOpts(ctx, tx.Transaction, &rpc.SimulateTransactionOpts{
			SigVerify: false, ReplaceRecentBlockhash: true, Commitment: rpc.CommitmentProcessed,
		})
		if err != nil || sim.Value == nil || sim.Value.Err != nil || sim.Value.UnitsConsumed == nil {
			t.Fatalf("%s: simulate with the table's limit %d: %v %+v", w.kinds[i], tx.ComputeUnits, err, sim)
		}
		consumed := *sim.Value.UnitsConsumed
		if consumed > need {
			t.Errorf("%s: consumed %d units, the table says %d", w.kinds[i], consumed, need)
		}
		fmt.Fprintf(&rows, "%-40s consumed %6d, table %6d, limit %6d\n", w.kinds[i], consumed, need, tx.ComputeUnits)
		units := instructionUnits(sim.Value.Logs)
		m := tx.Transaction.Message
		if len(units) != len(m.Instructions) {
			t.Fatalf("%s: %d instructions, %d in the logs", w.kinds[i], len(m.Instructions), len(units))
		}
		for j, ix := range m.Instructions {
			program := m.AccountKeys[ix.ProgramIDIndex]
			cost, _ := txbuild.InstructionUnits(program, ix.Data[0], true)
			name := fmt.Sprintf("%s tag %d", program, ix.Data[0])
			s := byKind[name]
			if s == nil {
				s = &seen{table: cost}
				byKind[name] = s
			}
			s.kinds = append(s.kinds, w.kinds[i])
			if units[j] >= 0 {
				s.most = max(s.most, uint64(units[j]))
			}
		}
	}
	t.Logf("per transaction:\n%s", rows.String())
	names := make([]string, 0, len(byKind))
	for k := range byKind {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		s := byKind[name]
		t.Logf("%-60s table %6d, most consumed %6d", name, s.table, s.most)
		if s.most > s.table {
			t.Errorf("%s: an instruction consumed %d, the table says %d (%v)", name, s.most, s.table, s.kinds)
		}
		if s.most > 0 && s.table > s.most+5_000 {
			t.Errorf("%s: the table's %d is wastefully above the %d consumed", name, s.table, s.most)
		}
	}

	before := v.Balance(t, owner)
	sendAll(t, v, w.owner, txbuild.Result{Txs: txs})
	var net int64
	for _, tx := range txs {
		net += tx.NetRebate
	}
	if got := int64(v.Balance(t, owner)) - int64(before); got != net {
		t.Errorf("the wallet gained %d, the builds promised %d", got, net)
	}
	for i, k := range w.items {
		if a := account(t, v, k); a != nil && w.types[i] != assets.TypeExcessRent {
			t.Errorf("%s %s still holds %d lamports", w.kinds[i], k, a.Lamports)
		}
	}
}
