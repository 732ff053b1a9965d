package server_test

import (
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// A ledger on a full disk: /readyz takes the instance out and says why
// ("database": "full"), and a submit is refused with a 503 that tells the
// client the storage is full (not that the ledger did not answer), naming
// neither the database nor its error.
func TestStorageFullIsNotReady(t *testing.T) {
	dir := storagetest.SmallDisk(t, 8<<20)
	e := newEnv(t, withStore(storagetest.SQLiteAt(t, dir)))
	wallet := newWallet()
	tok := e.session(wallet)
	free := storagetest.FillDisk(t, dir)
	defer free()

	r := e.rest("GET", "/readyz", noCred(), nil)
	if want := `{"checks":{"database":"full"},"status":"unavailable"}` + "\n"; r.code != 503 || string(r.body) != want {
		t.Fatalf("readyz on a full disk: %d %s, want 503 %s", r.code, r.body, want)
	}
	msg := e.rest("POST", "/v1/wallet/"+wallet+"/transactions/submit", bearer(tok),
		map[string]any{"signed": []any{map[string]any{"transactionBase64": "AQID", "submissionTicket": "t"}}}).restErr(503, "unavailable")
	if !strings.Contains(msg, "storage is full") || !strings.Contains(msg, "retry with the same tickets") {
		t.Fatalf("submit on a full disk: %q, want that storage is full and what to do", msg)
	}
	for _, internal := range []string{"disk", "database", "sqlite", "(13)", "did not answer"} {
		if strings.Contains(strings.ToLower(msg), internal) {
			t.Fatalf("submit on a full disk: %q names %q", msg, internal)
		}
	}
}
