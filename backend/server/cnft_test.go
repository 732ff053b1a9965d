package server_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/bubblegum"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/cnft"
)

// The recorded DAS answers (backend/upstream/das/testdata): a cNFT of recordedOwner in
// a depth-14 tree whose canopy (11 levels) leaves 3 proof nodes to send.
const (
	recordedOwner = "3GSXQm66NE2wDpw31q7uC9DDoMjG2c2LvHgVnjmTgkuv"
	cnftAsset     = "DBDmGn3wxTy6sCTxcqufhH2RyZvPzUH4WQ4VqFovETcV"
	cnftTree      = "4SdqgFcQzs6C5XrYF5SaPQrcsLKwip4CLEF8qDGnzsLG"
)

// fakeDAS replays the recorded getAsset and getAssetProof for cnftAsset and
// for frozen (the same leaf, frozen); any other id is not found. The leaf's
// owner becomes owner: the recorded one is off the curve, and the API takes
// only wallets that can sign.
func fakeDAS(t *testing.T, owner, frozen string) string {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile("../upstream/das/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	asset, proof, notFound := read("getAsset.json"), read("getAssetProof.json"), read("getAsset-notfound.json")
	asset = bytes.Replace(asset, []byte(`"owner": "`+recordedOwner+`"`), []byte(`"owner": "`+owner+`"`), 1)
	if !bytes.Contains(asset, []byte(owner)) {
		t.Fatal("getAsset.json has no ownership.owner to change")
	}
	frozenAsset := bytes.Replace(asset, []byte(`"frozen": false`), []byte(`"frozen": true`), 1)
	if bytes.Equal(frozenAsset, asset) {
		t.Fatal("getAsset.json has no ownership.frozen to change")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string            `json:"method"`
			Params map[string]string `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		id := req.Params["id"]
		switch {
		case id != cnftAsset && id != frozen:
			w.Write(notFound)
		case req.Method == "getAssetProof":
			w.Write(proof)
		case id == frozen:
			w.Write(frozenAsset)
		default:
			w.Write(asset)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// addTree puts the V1 merkle tree of the recorded leaf on the fake cluster:
// its header, and its size with an 11-level canopy.
func (f *fakeCluster) addTree() {
	header := make([]byte, bubblegum.TreeHeaderSize)
	header[0] = 1
	binary.LittleEndian.PutUint32(header[2:], 64)
	binary.LittleEndian.PutUint32(header[6:], 14)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.accounts[solana.MustPublicKeyFromBase58(cnftTree)] = fakeAccount{program: bubblegum.CompressionProgramID,
		lamports: 1_000_000_000, data: header, space: bubblegum.AccountSize(14, 64, 11)}
}

// TestBuildCNFT builds the burn of a compressed NFT through the real mux,
// with the recorded DAS answers and a fake cluster: it returns nothing, so
// the wallet pays its network fee and netRebate is negative, a JSON number,
// in the response and in the ticket.
func TestBuildCNFT(t *testing.T) {
	frozen, cnftOwner := solana.NewWallet().PublicKey().String(), newWallet()
	f := newFakeCluster(t)
	f.addTree()
	e := newEnv(t, withRPC(f.url), withDAS(fakeDAS(t, cnftOwner, frozen)))
	path := "/v1/wallet/" + cnftOwner + "/transactions"
	sel := func(addrs ...string) map[string]any {
		var items []any
		for _, a := range addrs {
			items = append(items, map[string]any{"type": assets.TypeCNFT, "address": a, "action": assets.ActionBurn})
		}
		return map[string]any{"items": items, "donationPercentage": 0.5, "priorityFeeLevel": "medium"}
	}

	t.Run("burn", func(t *testing.T) {
		e := e.with(t)
		r := e.rest("POST", path, apiKey(e.apiKey), sel(cnftAsset)).status(200)
		// 50,000 units consumed: limit 56,000 at 100 micro-lamports is a
		// priority fee of 6 lamports, so the network fee is 5,006.
		const fee = 5_006
		for _, want := range []string{`"netRebate":-5006`, `"grossRebate":0`, `"donationAmount":0`} {
			if !bytes.Contains(r.body, []byte(want)) {
				t.Errorf("body lacks %s: %s", want, r.body)
			}
		}
		var body struct {
			Transactions []struct {
				TransactionBase64  string
				GrossRebate        json.Number
				NetRebate          json.Number
				DonationAmount     json.Number
				ComputeUnitsNeeded json.Number
				SubmissionTicket   string
				Includes           []map[string]string
			}
			Totals map[string]json.Number
		}
		dec := json.NewDecoder(bytes.NewReader(r.body))
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil {
			t.Fatal(err)
		}
		if len(body.Transactions) != 1 {
			t.Fatalf("%d transactions", len(body.Transactions))
		}
		tx := body.Transactions[0]
		if tx.NetRebate != "-5006" || tx.GrossRebate != "0" || tx.DonationAmount != "0" || tx.ComputeUnitsNeeded != "56000" ||
			len(tx.Includes) != 1 || tx.Includes[0]["address"] != cnftAsset || tx.Includes[0]["type"] != "cnft" {
			t.Errorf("transaction %+v", tx)
		}
		if tot := body.Totals; tot["netRebate"] != "-5006" || tot["grossRebate"] != "0" || tot["fees"] != "5006" || tot["itemCount"] != "1" {
			t.Errorf("totals %v", tot)
		}
		built, err := solana.TransactionFromBase64(tx.TransactionBase64)
		if err != nil {
			t.Fatal(err)
		}
		var burns, transfers int
		for _, ix := range built.Message.Instructions {
			p, _ := built.Message.Program(ix.ProgramIDIndex)
			switch p {
			case bubblegum.ProgramID:
				burns++
				if len(ix.Accounts) != 7+3 {
					t.Errorf("burn with %d accounts, want 7 and 3 proof nodes", len(ix.Accounts))
				}
			case solana.SystemProgramID:
				transfers++
			}
		}
		if burns != 1 || transfers != 0 {
			t.Errorf("%d burns and %d transfers, want 1 and no donation", burns, transfers)
		}
		c, err := ticket.NewIssuer(e.keys).Verify(tx.SubmissionTicket)
		if err != nil {
			t.Fatal(err)
		}
		if c.Type != ledger.TypeNFTBurn || c.GrossRebate != 0 || c.NetRebate != -fee || c.DonationAmount != 0 ||
			c.NetworkFee != fee || c.ServiceFee != 0 || c.Fees != fee || c.Wallet != cnftOwner || c.LastValidBlockHeight != fakeLastValid ||
			len(c.Includes) != 1 || c.Includes[0] != (ticket.Item{Type: "cnft", Address: cnftAsset, Action: "burn"}) {
			t.Errorf("ticket claims %+v", c)
		}
	})

	t.Run("refused asset", func(t *testing.T) {
		e := e.with(t)
		msg := e.rest("POST", path, apiKey(e.apiKey), sel(cnftAsset, frozen)).restErr(400, "invalid_argument")
		if !strings.Contains(msg, "items[1]") || !strings.Contains(msg, frozen) || !strings.Contains(msg, cnft.ReasonFrozen) {
			t.Errorf("message %q", msg)
		}
		unknown := solana.NewWallet().PublicKey().String()
		msg = e.rest("POST", path, apiKey(e.apiKey), sel(unknown)).restErr(400, "invalid_argument")
		if !strings.Contains(msg, "items[0]") || !strings.Contains(msg, cnft.ReasonNotFound) {
			t.Errorf("message %q", msg)
		}
	})

	t.Run("another wallet's", func(t *testing.T) {
		e := e.with(t)
		msg := e.rest("POST", "/v1/wallet/"+newWallet()+"/transactions", apiKey(e.apiKey), sel(cnftAsset)).restErr(400, "invalid_argument")
		if !strings.Contains(msg, "items[0]") || !strings.Contains(msg, cnft.ReasonOtherWallet) {
			t.Errorf("message %q", msg)
		}
	})
}

// TestBuildCNFTWithoutDAS: a service without DAS_RPC_URL refuses cnft
// selections before asking anyone.
func TestBuildCNFTWithoutDAS(t *testing.T) {
	f := newFakeCluster(t)
	e := newEnv(t, withRPC(f.url))
	body := map[string]any{"items": []any{map[string]any{"type": "cnft", "address": cnftAsset, "action": "burn"}}}
	msg := e.rest("POST", "/v1/wallet/"+newWallet()+"/transactions", apiKey(e.apiKey), body).restErr(400, "invalid_argument")
	if !strings.Contains(msg, "items[0]") || !strings.Contains(msg, "compressed NFTs need DAS_RPC_URL on the service") {
		t.Errorf("message %q", msg)
	}
	if f.simulated != 0 {
		t.Error("simulated")
	}
}
