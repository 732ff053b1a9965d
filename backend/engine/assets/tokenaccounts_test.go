package assets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// tokenAccountsAnswerJSON is a getTokenAccountsByOwner answer as a node
// writes it, for wallet under program: n accounts of wallet, then the
// accounts an answer may hold that discovery leaves out.
func tokenAccountsAnswerJSON(t testing.TB, wallet, program solana.PublicKey, n int) []byte {
	t.Helper()
	entry := func(owner solana.PublicKey, data []byte) map[string]any {
		return map[string]any{"pubkey": solana.NewWallet().PublicKey().String(), "account": map[string]any{
			"data": []string{b64(data), "base64"}, "executable": false, "lamports": 2039280,
			"owner": owner.String(), "rentEpoch": json.Number("18446744073709551615"), "space": len(data),
		}}
	}
	var value []any
	for i := range n {
		a := acct{mint: solana.NewWallet().PublicKey(), owner: wallet, amount: uint64(i % 3), token2022: program.Equals(solana.Token2022ProgramID) && i%2 == 0}
		value = append(value, entry(program, a.encode()))
	}
	other := acct{mint: solana.NewWallet().PublicKey(), owner: solana.NewWallet().PublicKey()}
	value = append(value,
		entry(program, other.encode()),                                       // another wallet's
		entry(solana.SystemProgramID, acct{owner: wallet}.encode()),          // not a token program's
		entry(program, mintBytes(solana.NewWallet().PublicKey(), 6, 1, nil)), // a mint
		nil,
	)
	answer := map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
		"context": map[string]any{"slot": 341, "apiVersion": "2.3.13"}, "value": value,
	}}
	out, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func b64(data []byte) string {
	out, _ := json.Marshal(data) // []byte marshals as a base64 string
	return strings.Trim(string(out), `"`)
}

// decodedTokenAccounts is what solana-go's decoder makes of body.
func decodedTokenAccounts(t testing.TB, body []byte, wallet solana.PublicKey) []ownedAccount {
	t.Helper()
	out, ok := solanaGoTokenAccounts(body, wallet)
	if !ok {
		t.Fatal("solana-go does not decode the answer")
	}
	return out
}

// solanaGoTokenAccounts is what discovery lists from body through solana-go's
// decoder; ok is false when that decoder refuses it or it has no result.
func solanaGoTokenAccounts(body []byte, wallet solana.PublicKey) (out []ownedAccount, ok bool) {
	var resp struct {
		Result *rpc.GetTokenAccountsResult
	}
	if json.Unmarshal(body, &resp) != nil || resp.Result == nil {
		return nil, false
	}
	for _, ka := range resp.Result.Value {
		if ka == nil || ka.Account.Data == nil || !spltoken.IsProgram(ka.Account.Owner) {
			continue
		}
		if a, ok := ownedOf(ka.Pubkey, ka.Account.Owner, ka.Account.Lamports, ka.Account.Data.GetBinary(), wallet); ok {
			out = append(out, a)
		}
	}
	return out, true
}

func TestTokenAccountsAnswerEqualsSolanaGo(t *testing.T) {
	t.Parallel()
	wallet := solana.NewWallet().PublicKey()
	for _, program := range spltoken.Programs {
		body := tokenAccountsAnswerJSON(t, wallet, program, 40)
		var indented bytes.Buffer
		if err := json.Indent(&indented, body, "", "\t "); err != nil {
			t.Fatal(err)
		}
		// Members in another order, and escaped characters in strings.
		reordered := strings.NewReplacer(`"jsonrpc":"2.0",`, ``, `{"account":`, `{"jsonrpc":"2.0","account":`, `"base64"]`, `"base\u00364"]`).Replace(string(body))
		for name, text := range map[string]string{"compact": string(body), "indented": indented.String(), "reordered": reordered} {
			want := decodedTokenAccounts(t, []byte(text), wallet)
			got, err := tokenAccountsAnswer([]byte(text), wallet)
			if err != nil {
				t.Fatalf("%s %s: %v", program, name, err)
			}
			if len(got) != 40 || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s %s: %d accounts\n got %v\nwant %v", program, name, len(got), got, want)
			}
		}
	}
}

func TestTokenAccountsAnswerRefuses(t *testing.T) {
	t.Parallel()
	wallet := solana.NewWallet().PublicKey()
	body := string(tokenAccountsAnswerJSON(t, wallet, solana.TokenProgramID, 2))
	var rpcErr *jsonrpc.RPCError
	_, err := tokenAccountsAnswer([]byte(`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid param: could not find account"},"id":1}`), wallet)
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Fatalf("error answer: %v", err)
	}
	if got, err := tokenAccountsAnswer([]byte(`{"jsonrpc":"2.0","result":{"context":{"slot":1},"value":[]},"id":1}`), wallet); err != nil || len(got) != 0 {
		t.Fatalf("empty answer: %v %v", got, err)
	}
	for name, text := range map[string]string{
		"truncated":        body[:len(body)/2],
		"no result":        `{"jsonrpc":"2.0","id":1}`,
		"not JSON":         `<html>502 Bad Gateway</html>`,
		"base58 data":      strings.Replace(body, `"base64"]`, `"base58"]`, 1),
		"bad base64":       strings.Replace(body, `"data":["`, `"data":["!`, 1),
		"bad pubkey":       strings.Replace(body, `"pubkey":"`, `"pubkey":"0`, 1),
		"bad lamports":     strings.Replace(body, `"lamports":2039280`, `"lamports":-1`, 1),
		"unclosed":         strings.TrimSuffix(body, "}"),
		"bad literal":      strings.Replace(body, `"executable":false`, `"executable":fals`, 1),
		"missing a colon":  strings.Replace(body, `"slot":`, `"slot"`, 1),
		"missing a member": strings.Replace(body, `"id":1`, `"id"`, 1),
	} {
		if got, err := tokenAccountsAnswer([]byte(text), wallet); err == nil {
			t.Errorf("%s: %d accounts, no error", name, len(got))
		}
	}
}

// solanaGoOnly wraps a client: discovery calls its GetTokenAccountsByOwner,
// decoded by solana-go.
type solanaGoOnly struct{ RPC }

// The listing through a real client reads the answer itself, and lists what
// solana-go's decoder lists.
func TestOwnedTokenAccountsThroughClient(t *testing.T) {
	t.Parallel()
	wallet := solana.NewWallet().PublicKey()
	answers := map[string][]byte{}
	for _, p := range spltoken.Programs {
		answers[p.String()] = tokenAccountsAnswerJSON(t, wallet, p, 30)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string
			Params []json.RawMessage
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "getTokenAccountsByOwner" || len(req.Params) != 3 {
			http.Error(w, "bad request", 400)
			return
		}
		var filter struct{ ProgramID string }
		var opts struct{ Commitment, Encoding string }
		_ = json.Unmarshal(req.Params[1], &filter)
		_ = json.Unmarshal(req.Params[2], &opts)
		if string(req.Params[0]) != `"`+wallet.String()+`"` || opts.Commitment != "confirmed" || opts.Encoding != "base64" {
			http.Error(w, "bad params", 400)
			return
		}
		_, _ = w.Write(answers[filter.ProgramID])
	}))
	defer srv.Close()
	client := rpc.New(srv.URL)
	got, err := NewDiscoverer(client, nil).ownedTokenAccounts(context.Background(), wallet)
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewDiscoverer(solanaGoOnly{client}, nil).ownedTokenAccounts(context.Background(), wallet)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 60 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%d accounts\n got %v\nwant %v", len(got), got, want)
	}

	// An error answer with an HTTP error status is an error.
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	if _, err := NewDiscoverer(client, nil).ownedTokenAccounts(context.Background(), wallet); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("503: %v", err)
	}
}

func BenchmarkTokenAccountsAnswer(b *testing.B) {
	wallet := solana.NewWallet().PublicKey()
	body := tokenAccountsAnswerJSON(b, wallet, solana.Token2022ProgramID, 500)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tokenAccountsAnswer(body, wallet); err != nil {
			b.Fatal(err)
		}
	}
}
