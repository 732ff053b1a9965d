package server_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/mr-tron/base58"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// The golden flow's fixed world: every key, wallet, account, project and
// API key comes from a fixed seed or a fixed id, so the answers that carry
// them are the same on every run.

// seeded is the key of a fixed seed named by label.
func seeded(label string) solana.PrivateKey {
	seed := sha256.Sum256([]byte("reclaim golden " + label))
	return solana.PrivateKey(ed25519.NewKeyFromSeed(seed[:]))
}

// seededAddress is the public key of seeded(label).
func seededAddress(label string) solana.PublicKey { return seeded(label).PublicKey() }

// goldenAPIKey is the API key of a fixed seed: ak_live_ and base58 of 32 bytes.
func goldenAPIKey(label string) string {
	b := sha256.Sum256([]byte("reclaim golden api key " + label))
	return auth.APIKeyPrefix + base58.Encode(b[:])
}

// goldenEnv starts a server on its own SQLite database, signing with a fixed
// key, whose limiters never refill (their clock is frozen, so
// X-RateLimit-Remaining counts the requests of each API key, its sessions'
// included). The client address's bucket is ten times a key's, as served,
// so the headers report the key's.
func goldenEnv(t *testing.T, rpcURL string, burst int, opts ...option) *env {
	t.Helper()
	keys := signing.NewKeyring(ed25519.PrivateKey(seeded("signing key")))
	hasher := auth.NewHasher(bytes.Repeat([]byte{7}, 32))
	frozen := clocktest.New(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	return newEnv(t, append([]option{withShared(storagetest.SQLite(t), keys, hasher), withRPC(rpcURL),
		withRPCTimeout(5 * time.Second), withLimiter(ratelimit.NewMemory(1, burst, ratelimit.WithClock(frozen.Now))), withQuota(1, burst, 0),
		withIPLimiter(ratelimit.NewMemory(1, 10*burst, ratelimit.WithClock(frozen.Now))),
		withReferences(rand.NewChaCha8(sha256.Sum256([]byte("reclaim golden reference keys"))))}, opts...)...)
}

// goldenProject creates a project with a fixed id and an API key (id
// key_<name>) whose key is goldenAPIKey(name).
func goldenProject(t *testing.T, e *env, id, donationWallet string) {
	t.Helper()
	if _, err := e.store.CreateProject(context.Background(), project.Project{
		ID: id, Name: id, DonationWallet: donationWallet, CreatedAt: e.clock.Now(),
	}); err != nil {
		t.Fatal(err)
	}
	goldenKey(t, e, id, id)
}

// goldenKey adds the API key goldenAPIKey(name), id key_<name>, to a project.
func goldenKey(t *testing.T, e *env, projectID, name string) string {
	t.Helper()
	key := goldenAPIKey(name)
	if _, err := e.store.CreateAPIKey(context.Background(), project.APIKey{
		ID: "key_" + name, ProjectID: projectID, Name: name, Prefix: key[:12],
		Hash: e.hasher.Hash(key), CreatedAt: e.clock.Now(),
	}); err != nil {
		t.Fatal(err)
	}
	return key
}

// goldenCluster is fakeCluster holding fixed wallets, served by a handler
// that can refuse sendTransaction as a cluster refuses a transaction whose
// preflight fails.
type goldenCluster struct {
	*fakeCluster
	url        string
	refuseSend atomic.Bool
}

// Token account layout offsets (SPL Token's 165 bytes).
const (
	accountStateOffset    = 108
	accountNativeOffset   = 109
	wrappedSOLAmount      = 100_000_000
	goldenMintLamports    = 1_461_600
	tokenAccountStateFrzn = 2
)

func newGoldenCluster(t *testing.T) *goldenCluster {
	t.Helper()
	f := newFakeCluster(t)
	owner := seeded("owner")
	f.owner, f.ownerKey = owner.PublicKey(), owner
	g := &goldenCluster{fakeCluster: f}
	srv := httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(srv.Close)
	g.url = srv.URL
	return g
}

// goldenAccount is one token account of a golden wallet.
type goldenAccount struct {
	label   string
	program solana.PublicKey
	amount  uint64
	// nft: a mint of supply 1 and no decimals; frozen, native: the account's state.
	nft, frozen, native bool
}

// add puts owner's token accounts and their mints on the cluster, each at
// the address seededAddress(label) (its mint at label+" mint").
func (g *goldenCluster) add(owner solana.PublicKey, accounts ...goldenAccount) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, a := range accounts {
		mint := seededAddress(a.label + " mint")
		decimals, supply := uint8(6), uint64(1_000_000_000)
		if a.nft {
			decimals, supply = 0, 1
		}
		if a.native {
			mint, decimals = solana.WrappedSol, 9
		}
		md := mintData(decimals, supply)
		authority := seededAddress(a.label + " mint authority")
		copy(md[4:36], authority[:])
		g.accounts[mint] = fakeAccount{program: a.program, lamports: goldenMintLamports, data: md}
		data, lamports := tokenAccountData(mint, owner, a.amount), uint64(rentLamports)
		if a.frozen {
			data[accountStateOffset] = tokenAccountStateFrzn
		}
		if a.native {
			data[accountNativeOffset] = 1
			binary.LittleEndian.PutUint64(data[accountNativeOffset+4:], rentLamports)
			lamports += a.amount
		}
		g.accounts[seededAddress(a.label)] = fakeAccount{program: a.program, lamports: lamports, data: data}
	}
}

func (g *goldenCluster) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req rpcRequest
	if g.refuseSend.Load() && json.Unmarshal(body, &req) == nil && req.Method == "sendTransaction" {
		// A preflight failure, as a cluster words it.
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32002,` +
			`"message":"Transaction simulation failed: Blockhash not found","data":{"accounts":null,"err":"BlockhashNotFound","logs":[],"unitsConsumed":0}}}`))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	g.fakeCluster.serve(w, r)
}
