package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
)

// tableItem is a lookup_table item with its status, as the REST API sends it.
type tableItem struct {
	walletItem
	LookupTable struct {
		Status           string
		DeactivationSlot uint64
		ClosableFromSlot uint64
		ClosableAt       string
		Addresses        int
	}
}

// listTable lists wallet and gives its lookup table at table.
func listTable(t *testing.T, s *service, wallet solana.PublicKey, token string, table solana.PublicKey) tableItem {
	t.Helper()
	var l struct{ Items []tableItem }
	if code := s.call("GET", "/v1/wallet/"+wallet.String()+"/assets", bearerOf(token), nil, &l); code != 200 {
		t.Fatalf("assets: %d", code)
	}
	for _, it := range l.Items {
		if it.Address == table.String() && it.Type == "lookup_table" {
			return it
		}
	}
	t.Fatalf("lookup table %s not listed", table)
	return tableItem{}
}

// TestLookupTablesAndMintsLand: a full lookup table (256 addresses) of the
// wallet is listed active, deactivated through Reclaim (build, guards,
// submit: the wallet pays exactly the network fee, nothing comes back),
// listed deactivating with the slot it closes from (a close then is a 400
// saying so), the cluster warped past the SlotHashes window, listed
// closable and closed with a closable Token-2022 mint: each item gives all
// its lamports on chain, the wallet gains exactly the net rebates.
func TestLookupTablesAndMintsLand(t *testing.T) {
	t.Parallel()
	v, s, owner, _, token := reclaimablesEnv(t)
	w := owner.PublicKey()
	table := v.CreateLookupTable(t, owner, lookuptable.MaxAddresses)
	mint := v.CreateClosableMint(t, owner)
	tableLamports := account(t, v, table).Lamports

	it := listTable(t, s, w, token, table)
	if it.LookupTable.Status != "active" || strings.Join(it.Actions, ",") != "deactivate" || it.Lamports != tableLamports || it.LookupTable.Addresses != 256 {
		t.Fatalf("active table listed %+v, want deactivate, 256 addresses, all its %d lamports", it, tableLamports)
	}
	t.Logf("a full table: %d lamports", tableLamports)

	// The deactivation's net rebate is negative (built's is unsigned).
	var d struct {
		Transactions []struct {
			TransactionBase64, SubmissionTicket string
			GrossRebate, DonationAmount         uint64
			NetRebate                           int64
		}
	}
	deactivate := []selection{{Type: "lookup_table", Address: table.String(), Action: "deactivate"}}
	if code, raw := rawCall(t, s, "/v1/wallet/"+w.String()+"/transactions", token,
		map[string]any{"items": deactivate, "donationPercentage": 0.1, "priorityFeeLevel": "medium"}); code != 200 || json.Unmarshal(raw, &d) != nil {
		t.Fatalf("deactivation build: %d %s", code, raw)
	}
	if len(d.Transactions) != 1 || d.Transactions[0].GrossRebate != 0 || d.Transactions[0].DonationAmount != 0 || d.Transactions[0].NetRebate >= 0 {
		t.Fatalf("deactivation built %+v, want one transaction returning nothing, costing its fee", d.Transactions)
	}
	tx := d.Transactions[0]
	msg := change(t, guardTx{TransactionBase64: tx.TransactionBase64, Edits: solflare(w)})[0]
	before := v.Balance(t, w)
	sigs := s.submitConfirmed(t, v, w, token, signedTx{TransactionBase64: signMessage(t, msg, owner), SubmissionTicket: tx.SubmissionTicket})
	if got := int64(v.Balance(t, w)) - int64(before); got != tx.NetRebate || -got != int64((&burnEnv{v: v}).landed(t, sigs[0], burnBuilt{}).meta.Fee) {
		t.Fatalf("the deactivation moved the wallet by %d, its net rebate was %d (minus the network fee)", got, tx.NetRebate)
	}
	if a := account(t, v, table); a == nil || a.Lamports != tableLamports {
		t.Fatalf("the deactivation moved the table's lamports: %+v", a)
	}
	// The ledger's row is the chain's: finalized, gross 0, net minus the fee.
	if st := s.submissions(t, w, token, 30, sigs...)[0]; st.Status != "confirmed" || st.Landed == nil ||
		st.Landed.GrossRebate != 0 || st.Landed.NetRebate != tx.NetRebate || int64(st.Landed.Fee) != -tx.NetRebate {
		t.Fatalf("the deactivation's status %+v, want confirmed with net %d", st, tx.NetRebate)
	}

	it = listTable(t, s, w, token, table)
	if it.LookupTable.Status != "deactivating" || len(it.Actions) != 0 || it.LookupTable.ClosableFromSlot == 0 || it.LookupTable.ClosableAt == "" {
		t.Fatalf("deactivating table listed %+v", it)
	}
	closeTable := selection{Type: "lookup_table", Address: table.String(), Action: "close"}
	if code, raw := rawCall(t, s, "/v1/wallet/"+w.String()+"/transactions", token, map[string]any{"items": []selection{closeTable}}); code != 400 ||
		!strings.Contains(string(raw), "deactivating") || !strings.Contains(string(raw), fmt.Sprintf("slot %d", it.LookupTable.ClosableFromSlot)) {
		t.Fatalf("a close while deactivating: %d %s, want a 400 naming slot %d", code, raw, it.LookupTable.ClosableFromSlot)
	}

	v.WarpSlots(t, lookuptable.SlotHashesEntries+2)
	it = listTable(t, s, w, token, table)
	if it.LookupTable.Status != "deactivated" || strings.Join(it.Actions, ",") != "close" {
		t.Fatalf("after the window: listed %+v, want close", it)
	}
	mints, _ := listedBy(t, s, w, token, "mint")
	if m, ok := mints[mint.String()]; !ok || strings.Join(m.Actions, ",") != "close" || m.Lamports != account(t, v, mint).Lamports {
		t.Fatalf("closable mint listed %+v (%v)", m, ok)
	}
	listed := map[string]walletItem{table.String(): it.walletItem, mint.String(): mints[mint.String()]}
	b := s.build(t, w, token, map[string]any{"items": []selection{closeTable, {Type: "mint", Address: mint.String(), Action: "close"}},
		"donationPercentage": 0.1, "priorityFeeLevel": "medium"})
	if len(b.Transactions) != 2 {
		t.Fatalf("%d transactions, want one per ledger type", len(b.Transactions))
	}
	landed := landGuarded(t, v, s, owner, token, b, nil)
	checkGross(t, b, landed, listed)
	for _, k := range []solana.PublicKey{table, mint} {
		if a := account(t, v, k); a != nil && a.Lamports != 0 {
			t.Errorf("%s still holds %d lamports", k, a.Lamports)
		}
	}
	// The ledger counts the deactivation and the close as lookup_table_reclaim
	// and the mint's close as a token_account_closure, the gross the chain's.
	var board []struct {
		TotalGrossRebate      uint64
		TransactionTypeCounts map[string]int64
	}
	waitFor(t, "the leaderboard counts the three transactions", 60*time.Second, func() bool {
		s.call("GET", "/v1/leaderboard", s.key(), nil, &board)
		return len(board) == 1 && board[0].TransactionTypeCounts["lookup_table_reclaim"] == 2 && board[0].TransactionTypeCounts["token_account_closure"] == 1
	})
	if board[0].TotalGrossRebate != tableLamports+listed[mint.String()].Lamports {
		t.Errorf("leaderboard gross %d, want the table's and the mint's %d", board[0].TotalGrossRebate, tableLamports+listed[mint.String()].Lamports)
	}
}

// rawCall posts body to path with the session token and gives the status
// and the answer as sent.
func rawCall(t *testing.T, s *service, path, token string, body any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), "POST", s.url+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := restClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw
}
