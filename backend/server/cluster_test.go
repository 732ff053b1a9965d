package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// fakeCluster is a JSON-RPC endpoint serving one wallet's token accounts and
// their mints in the real account layouts, as a cluster answers
// getTokenAccountsByOwner and getMultipleAccounts (base64). With hold set,
// getMultipleAccounts waits for it, and reports on cancelled when the
// caller gives up first.
type fakeCluster struct {
	url      string
	mu       sync.Mutex
	accounts map[solana.PublicKey]fakeAccount
	owner    solana.PublicKey
	ownerKey solana.PrivateKey // signs the owner's built transactions

	hold      chan struct{}
	started   chan struct{}
	cancelled chan struct{}
	once      sync.Once
	simulated int
}

// What the fake answers to building: every transaction consumes
// fakeUnitsConsumed, recent priority fees are fakePriorityFee.
const (
	fakeUnitsConsumed = 50_000
	fakePriorityFee   = 100
	fakeLastValid     = 1_000_150
)

type fakeAccount struct {
	program  solana.PublicKey
	lamports uint64
	data     []byte
	// space, when set, is the account's size and data only its first bytes
	// (a merkle tree's header).
	space int
}

const rentLamports = 2_039_280

func newFakeCluster(t testing.TB) *fakeCluster {
	owner := solana.NewWallet()
	f := &fakeCluster{accounts: map[solana.PublicKey]fakeAccount{}, owner: owner.PublicKey(), ownerKey: owner.PrivateKey,
		started: make(chan struct{}, 1), cancelled: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// add gives the wallet n token accounts: every third empty, every third an
// NFT, the others token balances; under SPL Token and Token-2022.
func (f *fakeCluster) add(n int) {
	f.addEach(n, func(i int) (decimals uint8, supply, amount uint64) {
		switch i % 3 {
		case 1:
			return 6, 1_000_000, 1234
		case 2:
			return 0, 1, 1
		}
		return 6, 1_000_000, 0
	})
}

// addEmpty gives the wallet n empty token accounts, each of its own mint,
// half under SPL Token and half under Token-2022 (the latency benchmark's
// wallet).
func (f *fakeCluster) addEmpty(n int) {
	f.addEach(n, func(int) (uint8, uint64, uint64) { return 6, 0, 0 })
}

// addEach gives the wallet n token accounts, each of its own mint, odd ones
// under Token-2022; shape tells the i-th's mint decimals and supply and the
// account's amount.
func (f *fakeCluster) addEach(n int, shape func(i int) (decimals uint8, supply, amount uint64)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range n {
		program := solana.TokenProgramID
		if i%2 == 1 {
			program = solana.Token2022ProgramID
		}
		decimals, supply, amount := shape(i)
		mint := solana.NewWallet().PublicKey()
		f.accounts[mint] = fakeAccount{program: program, lamports: 1_461_600, data: mintData(decimals, supply)}
		f.accounts[solana.NewWallet().PublicKey()] = fakeAccount{program: program, lamports: rentLamports, data: tokenAccountData(mint, f.owner, amount)}
	}
}

// tokenAccountData is SPL Token's 165-byte account, initialized.
func tokenAccountData(mint, owner solana.PublicKey, amount uint64) []byte {
	d := append(append([]byte{}, mint[:]...), owner[:]...)
	d = binary.LittleEndian.AppendUint64(d, amount)
	d = append(d, make([]byte, 36)...) // no delegate
	d = append(d, 1)                   // initialized
	d = append(d, make([]byte, 12)...) // not native
	d = binary.LittleEndian.AppendUint64(d, 0)
	return append(d, make([]byte, 36)...) // no close authority
}

// mintData is SPL Token's 82-byte mint, initialized.
func mintData(decimals uint8, supply uint64) []byte {
	auth := solana.NewWallet().PublicKey()
	d := append(binary.LittleEndian.AppendUint32(nil, 1), auth[:]...)
	d = binary.LittleEndian.AppendUint64(d, supply)
	d = append(d, decimals, 1)
	return append(d, make([]byte, 36)...)
}

type rpcRequest struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

func (f *fakeCluster) serve(w http.ResponseWriter, r *http.Request) {
	var req rpcRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var result any
	switch req.Method {
	case "getHealth":
		result = "ok"
	case "getTokenAccountsByOwner":
		var owner string
		var filter struct{ ProgramID string }
		_ = json.Unmarshal(req.Params[0], &owner)
		_ = json.Unmarshal(req.Params[1], &filter)
		result = f.tokenAccounts(owner, filter.ProgramID)
	case "getAccountInfo":
		var k string
		_ = json.Unmarshal(req.Params[0], &k)
		f.mu.Lock()
		a, ok := f.accounts[solana.MustPublicKeyFromBase58(k)]
		f.mu.Unlock()
		result = map[string]any{"context": map[string]any{"slot": 1}, "value": nil}
		if ok {
			result = map[string]any{"context": map[string]any{"slot": 1}, "value": a.json()}
		}
	case "getLatestBlockhash":
		result = map[string]any{"context": map[string]any{"slot": 1}, "value": map[string]any{
			"blockhash": solana.HashFromBytes(make([]byte, 32)).String(), "lastValidBlockHeight": fakeLastValid}}
	case "getRecentPrioritizationFees":
		result = []any{map[string]any{"slot": 1, "prioritizationFee": fakePriorityFee}}
	case "simulateTransaction":
		f.mu.Lock()
		f.simulated++
		f.mu.Unlock()
		result = map[string]any{"context": map[string]any{"slot": 1}, "value": map[string]any{
			"err": nil, "logs": []string{}, "unitsConsumed": fakeUnitsConsumed}}
	case "sendTransaction":
		// The signature the cluster would report: the first of the
		// transaction's signatures (base64 wire format).
		var b64 string
		_ = json.Unmarshal(req.Params[0], &b64)
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(raw) < 65 {
			result = nil
			break
		}
		result = solana.SignatureFromBytes(raw[1:65]).String()
	case "getMultipleAccounts":
		if f.hold != nil {
			select {
			case f.started <- struct{}{}:
			default:
			}
			select {
			case <-f.hold:
			case <-r.Context().Done():
				f.once.Do(func() { close(f.cancelled) })
				return
			}
		}
		var keys []string
		_ = json.Unmarshal(req.Params[0], &keys)
		result = f.multiple(keys)
	default:
		result = nil
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

func (a fakeAccount) json() map[string]any {
	space := len(a.data)
	if a.space > 0 {
		space = a.space
	}
	return map[string]any{
		"lamports": a.lamports, "owner": a.program.String(), "executable": false, "rentEpoch": 0, "space": space,
		"data": []string{base64.StdEncoding.EncodeToString(a.data), "base64"},
	}
}

func (f *fakeCluster) tokenAccounts(owner, program string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	value := []any{}
	prog, errP := solana.PublicKeyFromBase58(program)
	own, errO := solana.PublicKeyFromBase58(owner)
	if errP != nil || errO != nil {
		return map[string]any{"context": map[string]any{"slot": 1}, "value": value}
	}
	for addr, a := range f.accounts {
		if a.program.Equals(prog) && len(a.data) == 165 && bytes.Equal(a.data[32:64], own[:]) {
			value = append(value, map[string]any{"pubkey": addr.String(), "account": a.json()})
		}
	}
	return map[string]any{"context": map[string]any{"slot": 1}, "value": value}
}

func (f *fakeCluster) multiple(keys []string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	value := make([]any, len(keys))
	for i, k := range keys {
		if a, ok := f.accounts[solana.MustPublicKeyFromBase58(k)]; ok {
			value[i] = a.json()
		}
	}
	return map[string]any{"context": map[string]any{"slot": 1}, "value": value}
}
