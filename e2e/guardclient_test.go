package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/harness"
	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
)

// Helpers of the wallet guard tests: guardclient/guard.mjs changes built
// transactions as Phantom and Solflare do (and as no wallet may), with the
// official Lighthouse client; the test signs the result as the wallet.

// edit is one change guard.mjs makes to a transaction's instructions; At
// and I, J count from the end when negative, At may be "end".
type edit struct {
	Op string         `json:"op"`
	At any            `json:"at,omitempty"`
	I  int            `json:"i,omitempty"`
	J  int            `json:"j,omitempty"`
	Ix map[string]any `json:"ix,omitempty"`
}

// guardTx is a built transaction and what to change in it.
type guardTx struct {
	TransactionBase64 string         `json:"transactionBase64"`
	Edits             []edit         `json:"edits,omitempty"`
	FeePayer          string         `json:"feePayer,omitempty"`
	Blockhash         string         `json:"blockhash,omitempty"`
	LookupTable       map[string]any `json:"lookupTable,omitempty"`
}

func insert(at any, ix map[string]any) edit { return edit{Op: "insert", At: at, Ix: ix} }

func replace(at int, ix map[string]any) edit { return edit{Op: "replace", At: at, Ix: ix} }

// guardClient checks node is there and the client's modules installed.
func guardClient(t *testing.T) string {
	t.Helper()
	return nodeClient(t, "guardclient", "the wallet guard tests")
}

// nodeClient checks node is there (CI=true: fails without it, naming what
// must run; else skips) and the modules of the client in folder name
// installed, and returns the folder's path.
func nodeClient(t *testing.T, name, what string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node is not installed (CI=true: %s must run)", what)
		}
		t.Skip("node is not installed")
	}
	dir, err := filepath.Abs(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.EnsureNodeModules(t.Context(), dir, os.Stderr); err != nil {
		t.Fatal(err)
	}
	return dir
}

// requireLighthouse fails t unless the validator loads Lighthouse, or SPL
// Noop to stand in for it (ProgramsDir holds either): a guarded transaction
// would otherwise fail as InvalidProgramForExecution.
func requireLighthouse(t *testing.T) {
	t.Helper()
	if !harness.HasPrograms("L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95") && !harness.HasPrograms("noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV") {
		t.Fatalf("the validator has neither Lighthouse nor SPL Noop to stand in for it: set %s to ../shared/programs", harness.ProgramsDirEnv)
	}
}

// change runs guard.mjs on txs and returns the changed messages, unsigned.
func change(t *testing.T, txs ...guardTx) [][]byte {
	t.Helper()
	dir := guardClient(t)
	in, err := json.Marshal(map[string]any{"transactions": txs})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "node", "guard.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node guard.mjs: %v\n%s", err, stderr.String())
	}
	var res struct{ Messages []string }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	msgs := make([][]byte, len(res.Messages))
	for i, m := range res.Messages {
		if msgs[i], err = base64.StdEncoding.DecodeString(m); err != nil {
			t.Fatal(err)
		}
	}
	return msgs
}

// signMessage signs msg as key and returns the transaction in base64: a
// signature slot per required signer, key's filled, others zero.
func signMessage(t *testing.T, msg []byte, key solana.PrivateKey) string {
	t.Helper()
	var m solana.Message
	if err := m.UnmarshalWithDecoder(bin.NewBinDecoder(msg)); err != nil {
		t.Fatal(err)
	}
	sig, err := key.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	n := int(m.Header.NumRequiredSignatures)
	raw := []byte{byte(n)}
	for i := range n {
		if m.AccountKeys[i].Equals(key.PublicKey()) {
			raw = append(raw, sig[:]...)
		} else {
			raw = append(raw, make([]byte, 64)...)
		}
	}
	return base64.StdEncoding.EncodeToString(append(raw, msg...))
}

// randomKey is a key no one holds.
func randomKey() solana.PublicKey {
	var k solana.PublicKey
	_, _ = rand.Read(k[:])
	return k
}

// console signs a console owner of s's project in and returns the
// project's overview page: what an operator sees.
func (s *service) consoleOverview(t *testing.T) string {
	t.Helper()
	return s.console(t).get(t, "/admin/projects/"+s.projectID)
}

// consoleSession is a console owner's browser: its cookies, and every page
// it was served.
type consoleSession struct {
	client *http.Client
	base   string
	pages  map[string]string
}

// console creates an owner of s's project in the console and signs it in.
func (s *service) console(t *testing.T) *consoleSession {
	t.Helper()
	const email, password = "ops@example.com", "correct horse battery staple"
	reclaimd.Run(t, s.env, password, "owner", "create", "--email", email)
	s.cli("project", "share", "--project", s.projectID, "--email", email, "--role", "owner")
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &consoleSession{client: &http.Client{Jar: jar}, base: s.url, pages: map[string]string{}}
	form := c.get(t, "/admin/signin")
	c.post(t, "/admin/signin", form, url.Values{"email": {email}, "password": {password}})
	return c
}

// get fetches a console page, which must answer 200.
func (c *consoleSession) get(t *testing.T, path string) string {
	t.Helper()
	resp, err := c.client.Get(c.base + path)
	if err != nil {
		t.Fatal(err)
	}
	return c.read(t, "GET "+path, resp)
}

// post submits a form with the CSRF token of the page it is on.
func (c *consoleSession) post(t *testing.T, path, page string, form url.Values) string {
	t.Helper()
	csrf := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindStringSubmatch(page)
	if csrf == nil {
		t.Fatalf("no CSRF token on the page before POST %s:\n%s", path, page)
	}
	form.Set("csrf_token", csrf[1])
	resp, err := c.client.PostForm(c.base+path, form)
	if err != nil {
		t.Fatal(err)
	}
	return c.read(t, "POST "+path, resp)
}

func (c *consoleSession) read(t *testing.T, what string, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d\n%s", what, resp.StatusCode, b)
	}
	c.pages[what] = string(b)
	return string(b)
}
