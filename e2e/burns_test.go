package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// Landing burns through the service, the way an integrator does: list,
// build (with a donation and the service fee), sign, submit, land; then
// every figure the API gave is checked against the chain, transaction by
// transaction, from the landed transactions' balances: the wallet's change
// is the net rebate, the donation wallet's the donation, the treasury's the
// service fee, and each item returns exactly the lamports the listing
// promised, counted on the accounts its burn closes or shrinks.

// burnWant is one item a landing test burns and what the test worked out
// from the chain, independently of the service.
type burnWant struct {
	// kind names the item's kind in the measurements ("NFT", "Core asset").
	kind    string
	address solana.PublicKey
	// typ is the listing's type: nft or cnft.
	typ string
	// lamports the burn returns alone: the listing must say so.
	lamports uint64
	// built is what the build counts and the burn returns among the
	// selection, when it differs from lamports (a print whose edition
	// marker closes after another print's burn); 0: lamports.
	built uint64
	// accounts whose balance change in the landing transaction adds up to
	// lamports (an account another item of the transaction also changes
	// is named by one of them only).
	accounts []solana.PublicKey
}

// returns is what w's burn returns among the selection.
func (w burnWant) returns() uint64 {
	if w.built != 0 {
		return w.built
	}
	return w.lamports
}

// burnBuilt is a built transaction; its net rebate is negative when it
// burns compressed NFTs alone.
type burnBuilt struct {
	TransactionBase64 string
	Includes          []selection
	GrossRebate       uint64
	RentRebate        uint64
	NetRebate         int64
	DonationAmount    uint64
	SubmissionTicket  string
}

// burnLanded is a landed transaction of a landing test.
type burnLanded struct {
	built  burnBuilt
	size   int
	meta   *rpc.TransactionMeta
	keys   []solana.PublicKey
	topCUs map[string][]uint64 // compute units of each top-level instruction, by program
}

// delta is key's balance change in the transaction.
func (l burnLanded) delta(key solana.PublicKey) int64 {
	i := slices.Index(l.keys, key)
	if i < 0 {
		return 0
	}
	return int64(l.meta.PostBalances[i]) - int64(l.meta.PreBalances[i])
}

// burnEnv is what the landing subtests share: one validator, one service,
// the DAS stand-in the service lists compressed NFTs from.
type burnEnv struct {
	v   *harness.Validator
	s   *service
	das *dasStandIn
}

// landBurns lists wallet, checks that every want is listed as burnable for
// its lamports, builds their burns with a 10% donation, signs, submits and
// lands them, checks every figure against the landed transactions and that
// the listing no longer shows them; it returns the transactions.
// afterLanding, when not nil, runs once the transactions are confirmed,
// before the listing is read again (the DAS stand-in learns of cNFT burns).
func (e *burnEnv) landBurns(t *testing.T, owner solana.PrivateKey, wants []burnWant, afterLanding func()) []burnLanded {
	t.Helper()
	s := e.s.in(t)
	wallet := owner.PublicKey()
	token := s.session(wallet)
	listed := map[string]walletItem{}
	for _, it := range s.listAll(t, wallet, token) {
		listed[it.Address] = it
	}
	byAddr := map[string]burnWant{}
	sel := make([]selection, len(wants))
	for i, w := range wants {
		it, ok := listed[w.address.String()]
		if !ok || it.Type != w.typ || !slices.Equal(it.Actions, []string{"burn"}) || it.Lamports != w.lamports {
			t.Fatalf("%s %s listed as %+v (found %v), want a %s to burn returning %d lamports", w.kind, w.address, it, ok, w.typ, w.lamports)
		}
		byAddr[w.address.String()] = w
		sel[i] = selection{Type: w.typ, Address: w.address.String(), Action: "burn"}
	}
	var b struct{ Transactions []burnBuilt }
	if code := s.call("POST", "/v1/wallet/"+wallet.String()+"/transactions", bearerOf(token),
		map[string]any{"items": sel, "donationPercentage": 0.1, "priorityFeeLevel": "medium"}, &b); code != 200 {
		t.Fatalf("build: %d", code)
	}
	signed := make([]signedTx, len(b.Transactions))
	var net int64
	for i, tx := range b.Transactions {
		net += tx.NetRebate
		signed[i] = signedTx{TransactionBase64: signTx(t, tx.TransactionBase64, owner), SubmissionTicket: tx.SubmissionTicket}
	}
	before := e.v.Balance(t, wallet)
	res := s.submit(t, wallet, token, signed...)
	sigs := make([]string, len(res))
	for i, r := range res {
		if r.Status != "submitted" || r.Signature == nil {
			t.Fatalf("result %d: %+v", i, r)
		}
		sigs[i] = *r.Signature
	}
	waitConfirmed(t, e.v, sigs)
	if got := int64(e.v.Balance(t, wallet)) - int64(before); got != net {
		t.Fatalf("wallet changed by %d lamports, the API promised a net rebate of %d", got, net)
	}
	landed := make([]burnLanded, len(b.Transactions))
	for i, tx := range b.Transactions {
		landed[i] = e.landed(t, sigs[i], tx)
		l := landed[i]
		fee := tx.RentRebate * serviceFeeBPS / 10_000 // of the rent alone
		if l.delta(wallet) != tx.NetRebate || l.delta(s.donation) != int64(tx.DonationAmount) || l.delta(s.treasury) != int64(fee) {
			t.Fatalf("transaction %d: wallet %+d (net %d), donation %+d (%d), treasury %+d (service fee %d)",
				i, l.delta(wallet), tx.NetRebate, l.delta(s.donation), tx.DonationAmount, l.delta(s.treasury), fee)
		}
		var gross uint64
		for _, inc := range tx.Includes {
			w := byAddr[inc.Address]
			var returned int64
			for _, a := range w.accounts {
				returned -= l.delta(a)
			}
			if returned != int64(w.returns()) {
				t.Errorf("%s %s returned %d lamports on chain, want %d (listed %d)", w.kind, w.address, returned, w.returns(), w.lamports)
			}
			gross += w.returns()
		}
		if gross != tx.GrossRebate {
			t.Fatalf("transaction %d: gross rebate %d, its items were listed for %d", i, tx.GrossRebate, gross)
		}
	}
	if afterLanding != nil {
		afterLanding()
	}
	after := s.listAll(t, wallet, token)
	for _, it := range after {
		if _, burned := byAddr[it.Address]; burned {
			t.Errorf("%s still listed after its burn landed: %+v", it.Address, it)
		}
	}
	return landed
}

// landed reads a landed transaction: its meta, account keys, size and the
// compute units of its top-level instructions.
func (e *burnEnv) landed(t *testing.T, sig string, built burnBuilt) burnLanded {
	t.Helper()
	maxVersion := uint64(0)
	res, err := e.v.RPC.GetTransaction(t.Context(), solana.MustSignatureFromBase58(sig), &rpc.GetTransactionOpts{
		Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &maxVersion, Encoding: solana.EncodingBase64,
	})
	if err != nil || res == nil || res.Meta == nil {
		t.Fatalf("get transaction %s: %v", sig, err)
	}
	tx, err := res.Transaction.GetTransaction()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return burnLanded{built: built, size: len(raw), meta: res.Meta, keys: tx.Message.AccountKeys, topCUs: topLevelUnits(res.Meta.LogMessages)}
}

var (
	logInvoke   = regexp.MustCompile(`^Program (\S+) invoke \[(\d+)\]$`)
	logConsumed = regexp.MustCompile(`^Program (\S+) consumed (\d+) of \d+ compute units$`)
	logEnd      = regexp.MustCompile(`^Program (\S+) (success|failed)`)
)

// topLevelUnits reads the compute units each top-level instruction consumed
// from a transaction's logs, by program.
func topLevelUnits(logs []string) map[string][]uint64 {
	out := map[string][]uint64{}
	depth := 0
	for _, line := range logs {
		if m := logInvoke.FindStringSubmatch(line); m != nil {
			depth, _ = strconv.Atoi(m[2])
			continue
		}
		if m := logConsumed.FindStringSubmatch(line); m != nil && depth == 1 {
			n, _ := strconv.ParseUint(m[2], 10, 64)
			out[m[1]] = append(out[m[1]], n)
			continue
		}
		if logEnd.MatchString(line) {
			depth--
		}
	}
	return out
}

// listAll reads the whole listing of wallet.
func (s *service) listAll(t *testing.T, wallet solana.PublicKey, token string) []walletItem {
	t.Helper()
	var l listing
	if code := s.call("GET", "/v1/wallet/"+wallet.String()+"/assets?limit=1000", bearerOf(token), nil, &l); code != 200 {
		t.Fatalf("assets: %d", code)
	}
	return l.Items
}

// in is s for a subtest: its failures fail t.
func (s *service) in(t *testing.T) *service {
	c := *s
	c.t = t
	return &c
}

// measurement is what landing one kind of item costs, as measured.
type measurement struct {
	kind string
	// perTx is how many items the first transaction took when the build
	// needed more than one (the byte limit bound it); 0 when all fitted.
	perTx int
	// txBytes is the first transaction's signed size; txUnits its compute
	// units (meta.computeUnitsConsumed, compute budget and transfers
	// included) per item.
	txBytes int
	txUnits uint64
	gross   uint64
	// units per item: the burn instruction's own compute units, mean and
	// range over every item landed.
	units, minUnits, maxUnits uint64
}

var measured struct {
	sync.Mutex
	rows []measurement
}

// measure records what landing items of kind cost: items per transaction,
// gross per item, and the compute units program's burn instructions
// consumed.
func measure(kind string, program solana.PublicKey, gross uint64, landed []burnLanded) {
	m := measurement{kind: kind, gross: gross, txBytes: landed[0].size}
	if cu := landed[0].meta.ComputeUnitsConsumed; cu != nil {
		m.txUnits = *cu / uint64(len(landed[0].built.Includes))
	}
	if len(landed) > 1 {
		m.perTx = len(landed[0].built.Includes)
	}
	var sum, n uint64
	for _, l := range landed {
		for _, u := range l.topCUs[program.String()] {
			sum, n = sum+u, n+1
			if m.minUnits == 0 || u < m.minUnits {
				m.minUnits = u
			}
			m.maxUnits = max(m.maxUnits, u)
		}
	}
	if n > 0 {
		m.units = sum / n
	}
	measured.Lock()
	defer measured.Unlock()
	measured.rows = append(measured.rows, m)
}

// measurementTable renders the measurements as a Markdown table.
func measurementTable() string {
	measured.Lock()
	defer measured.Unlock()
	rows := slices.Clone(measured.rows)
	sort.Slice(rows, func(i, j int) bool { return rows[i].kind < rows[j].kind })
	var b strings.Builder
	b.WriteString("| kind | items per transaction at the byte limit | gross per item (lamports) | compute units per item: the burn | the whole transaction, per item |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		perTx := "all fit"
		if r.perTx > 0 {
			perTx = fmt.Sprintf("%d (%d bytes)", r.perTx, r.txBytes)
		}
		units := strconv.FormatUint(r.units, 10)
		if r.minUnits != r.maxUnits {
			units = fmt.Sprintf("%d (%d to %d)", r.units, r.minUnits, r.maxUnits)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %d |\n", r.kind, perTx, r.gross, units, r.txUnits)
	}
	return b.String()
}
