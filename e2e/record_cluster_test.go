//go:build record

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/chain/nonce"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestRecordClusterAnswers records, from a validator of its own, the
// JSON-RPC answers discovery's unit tests serve (backend/engine/assets/
// testdata/cluster): a wallet with token accounts of both programs, its own
// mints, a program buffer, a nonce account, an initialized stake account, a
// delegated one fully deactivated and one still cooling down, lookup tables
// active, deactivated past the SlotHashes window and deactivating, a
// Token-2022 mint it can close, after a rent cut. Run it when the layouts
// or the validator change:
//
//	go test -tags record ./e2e -run TestRecordClusterAnswers -count=1
func TestRecordClusterAnswers(t *testing.T) {
	v := harness.Private(t)
	owner, issuer := v.NewWallet(t, 100*solana.LAMPORTS_PER_SOL), v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	w := owner.PublicKey()
	x := newExcessWallet(t, v, owner, issuer)
	spl, t22, mine22, mineSPL := x.spl, x.t22, x.mine22, x.mineSPL
	buffer := v.CreateBuffer(t, owner, 2_000)
	nonceAccount := v.CreateNonce(t, owner)
	initialized := v.CreateStake(t, owner, solana.LAMPORTS_PER_SOL, false)
	activeTable, oldTable := v.CreateLookupTable(t, owner, 3), v.CreateLookupTable(t, owner, 2)
	v.DeactivateLookupTable(t, owner, oldTable)
	closable := v.CreateClosableMint(t, owner)
	cooled := v.CreateStake(t, owner, 5*solana.LAMPORTS_PER_SOL, true)
	v.WarpEpochs(t, 1)
	v.DeactivateStake(t, owner, cooled)
	v.WarpEpochs(t, 1)
	cooling := v.CreateStake(t, owner, 2*solana.LAMPORTS_PER_SOL, true)
	v.WarpEpochs(t, 1)
	v.DeactivateStake(t, owner, cooling) // in its deactivation epoch: still effective
	newTable := v.CreateLookupTable(t, owner, 1)
	v.DeactivateLookupTable(t, owner, newTable) // its slot still in SlotHashes
	v.SetRent(t, rentCut)

	dir := filepath.Join("..", "backend", "engine", "assets", "testdata", "cluster")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b58 := func(k solana.PublicKey) string { return k.String() }
	memcmp := func(offset int, b []byte) map[string]any {
		return map[string]any{"memcmp": map[string]any{"offset": offset, "bytes": solana.Base58(b).String()}}
	}
	opts := func(filters ...map[string]any) map[string]any {
		return map[string]any{"commitment": "confirmed", "encoding": "base64", "filters": filters}
	}
	record := func(name, method string, params ...any) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		resp, err := http.Post(v.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		answer, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		var pretty bytes.Buffer
		out, _ := json.Marshal(map[string]any{"request": json.RawMessage(body), "answer": json.RawMessage(answer)})
		if err := json.Indent(&pretty, out, "", " "); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), append(pretty.Bytes(), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base64Opts := map[string]any{"commitment": "confirmed", "encoding": "base64"}
	record("state", "getMultipleAccounts", []string{b58(solana.SysVarRentPubkey), b58(solana.SysVarClockPubkey), b58(spltoken.PTokenFeature)}, base64Opts)
	record("stake-history", "getMultipleAccounts", []string{b58(solana.SysVarStakeHistoryPubkey)}, base64Opts)
	record("slot-hashes", "getMultipleAccounts", []string{lookuptable.SlotHashesAddress}, base64Opts)
	record("token-accounts-spl", "getTokenAccountsByOwner", b58(w), map[string]any{"programId": b58(solana.TokenProgramID)}, base64Opts)
	record("token-accounts-2022", "getTokenAccountsByOwner", b58(w), map[string]any{"programId": b58(solana.Token2022ProgramID)}, base64Opts)
	var mints []string
	for _, k := range []solana.PublicKey{spl, t22, x.empty, x.wrapped} {
		st, err := spltoken.ParseAccount(account(t, v, k).Data.GetBinary())
		if err != nil {
			t.Fatal(err)
		}
		mints = append(mints, b58(st.Mint))
	}
	record("mints", "getMultipleAccounts", mints, base64Opts)
	record("mints-2022", "getProgramAccounts", b58(solana.Token2022ProgramID), opts(memcmp(0, spltoken.MintAuthorityBytes(w))))
	record("mints-spl", "getProgramAccounts", b58(solana.TokenProgramID), opts(memcmp(0, spltoken.MintAuthorityBytes(w)), map[string]any{"dataSize": spltoken.MintSize}))
	sliced := opts(memcmp(0, loaderv3.AuthorityFilter(w)))
	sliced["dataSlice"] = map[string]any{"offset": 0, "length": loaderv3.BufferMetadataSize}
	record("buffers", "getProgramAccounts", b58(loaderv3.ProgramID), sliced)
	record("nonces", "getProgramAccounts", b58(solana.SystemProgramID), opts(map[string]any{"dataSize": nonce.Size}, memcmp(nonce.AuthorityOffset, w[:])))
	record("stakes", "getProgramAccounts", b58(stake.ProgramID), opts(map[string]any{"dataSize": stake.Size}, memcmp(stake.WithdrawerOffset, w[:])))
	tables := opts(memcmp(lookuptable.AuthorityOffset-1, append([]byte{1}, w[:]...)))
	tables["dataSlice"] = map[string]any{"offset": 0, "length": lookuptable.MetaSize}
	record("lookup-tables", "getProgramAccounts", lookuptable.ProgramID.String(), tables)
	record("selected", "getMultipleAccounts", []string{b58(spl), b58(t22), b58(mine22), b58(mineSPL), b58(buffer), b58(nonceAccount), b58(initialized), b58(cooled), b58(cooling),
		b58(activeTable), b58(oldTable), b58(newTable), b58(closable)}, base64Opts)
	t.Logf("wallet %s; spl %s t22 %s mine22 %s mineSPL %s buffer %s nonce %s initialized %s cooled %s cooling %s tables %s %s %s closable mint %s",
		w, spl, t22, mine22, mineSPL, buffer, nonceAccount, initialized, cooled, cooling, activeTable, oldTable, newTable, closable)
}
