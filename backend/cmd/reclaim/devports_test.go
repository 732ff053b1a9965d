package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/config"
)

// holdPort listens on a free loopback port until the test ends, as another
// program would, and returns it.
func holdPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func devSettingsFrom(t *testing.T, env map[string]string) devSettings {
	t.Helper()
	d, _, err := loadDevSettings(nil, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// make run checks every port it will take before it starts anything, and
// one message names each taken port with the variable that moves it; two
// parts on one port (the sample app on the validator's PubSub, as in issue
// 35) are refused the same way.
func TestDevPortsTakenAreNamed(t *testing.T) {
	api, validator, pubsub, metrics := holdPort(t), holdPort(t), holdPort(t), holdPort(t)
	ds := devSettingsFrom(t, map[string]string{"VALIDATOR_PORT": strconv.Itoa(validator), "VALIDATOR_PUBSUB_PORT": strconv.Itoa(pubsub)})
	_, err := claimDevPorts(context.Background(), loopback(api), ds, true, loopback(metrics))
	if err == nil {
		t.Fatal("taken ports accepted")
	}
	for _, want := range []string{
		loopback(api) + " (RECLAIM_ADDR)", loopback(validator) + " (VALIDATOR_PORT)", loopback(pubsub) + " (VALIDATOR_PUBSUB_PORT)",
		loopback(metrics) + " (RECLAIM_METRICS_ADDR)", "nothing was started",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\ndoes not name %q", err, want)
		}
	}

	free := freePortsT(t, 3)
	ds = devSettingsFrom(t, map[string]string{"VALIDATOR_PORT": strconv.Itoa(free[0]), "SAMPLE_APP_PORT": strconv.Itoa(free[0] + 1)})
	if _, err := claimDevPorts(context.Background(), loopback(free[1]), ds, false, ""); err == nil ||
		!strings.Contains(err.Error(), "VALIDATOR_PUBSUB_PORT, unset: VALIDATOR_PORT+1 and SAMPLE_APP_PORT") {
		t.Errorf("the sample app on the validator's PubSub port: %v", err)
	}
}

// Unset, the metrics listener takes a free port, and the validator leaves
// its usual ports when another program holds them; the block says where.
func TestDevPortsMoveWhenUnset(t *testing.T) {
	held := holdPort(t)
	ds := devSettingsFrom(t, map[string]string{})
	ds.validatorPort, ds.pubsubPort = held, held+1 // the "usual" ports, held
	api := freePortsT(t, 1)[0]
	p, err := claimDevPorts(context.Background(), loopback(api), ds, false, "127.0.0.1:9090")
	if err != nil {
		t.Fatal(err)
	}
	if p.metricsAddr != "127.0.0.1:0" {
		t.Errorf("metrics on %q, want a free port", p.metricsAddr)
	}
	if p.validator == held || p.pubsub == held+1 || p.validator == p.pubsub || len(p.notes) != 1 ||
		!strings.Contains(p.notes[0], "VALIDATOR_PORT and VALIDATOR_PUBSUB_PORT fix them") {
		t.Errorf("the validator on %d, PubSub %d, notes %q", p.validator, p.pubsub, p.notes)
	}
	// The sample app's port, held: noted, not refused (make example's own).
	sample := holdPort(t)
	ds.sampleAddr = loopback(sample)
	if p, err := claimDevPorts(context.Background(), loopback(api), ds, false, ""); err != nil || len(p.notes) != 2 || !strings.Contains(p.notes[1], "SAMPLE_APP_PORT moves it") {
		t.Errorf("the sample app's port taken: %q, %v", p.notes, err)
	}
	ds.sampleAddr = ""
	// Set, a port is the operator's: checked, never moved.
	p, err = claimDevPorts(context.Background(), loopback(api), ds, true, "127.0.0.1:0")
	if err != nil || p.metricsAddr != "127.0.0.1:0" {
		t.Errorf("RECLAIM_METRICS_ADDR set: %q, %v", p.metricsAddr, err)
	}
}

func freePortsT(t *testing.T, n int) []int {
	t.Helper()
	p, err := freePorts(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The dev stack serves on loopback, so its console takes an http://127.0.0.1
// webhook receiver without RECLAIM_WEBHOOK_ALLOW_INSECURE. Attack: the same
// receiver on a service that is not the loopback dev stack (reclaim serve,
// or make run on 0.0.0.0) would be a way into the machine's private network
// for anyone reaching the console: refused, with the variable named.
func TestDevStackAllowsLocalWebhooksAlone(t *testing.T) {
	for _, c := range []struct {
		name  string
		env   func(dir string) map[string]string
		allow bool
	}{
		{"make run on loopback", func(dir string) map[string]string { return devEnvMap(dir, "127.0.0.1:0", nil) }, true},
		{"make run on 0.0.0.0", func(dir string) map[string]string { return devEnvMap(dir, "0.0.0.0:0", nil) }, false},
		{"make run with the variable off", func(dir string) map[string]string {
			return devEnvMap(dir, "127.0.0.1:0", map[string]string{"RECLAIM_WEBHOOK_ALLOW_INSECURE": "0"})
		}, false},
		{"reclaim serve", func(dir string) map[string]string {
			return map[string]string{"RECLAIM_DATA_DIR": dir, "RECLAIM_ADDR": "127.0.0.1:0", "RECLAIM_METRICS_ADDR": "off"}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			env := c.env(dir)
			env["RECLAIM_SECURE_COOKIES"] = "false"
			const email, password = "dev@example.com", "correct horse battery staple"
			var out bytes.Buffer
			if err := run(context.Background(), []string{"owner", "create", "--email", email}, func(k string) string { return env[k] }, strings.NewReader(password+"\n"), &out, io.Discard); err != nil {
				t.Fatal(err)
			}
			p, err := cliEnv(t, env, "project", "create", "--name", "Dev", "--owner", email)
			if err != nil {
				t.Fatal(err)
			}
			base, _, stop := serveWith(t, dir, env)
			defer stop()
			status, body := consoleAddWebhook(t, base, email, password, strings.TrimSpace(p), "http://127.0.0.1:9/hook")
			added := status == http.StatusOK && strings.Contains(body, "Endpoint added")
			if added != c.allow {
				t.Fatalf("http://127.0.0.1 receiver: %d, added %v, want %v:\n%s", status, added, c.allow, body)
			}
			if !c.allow && (status != http.StatusUnprocessableEntity || !strings.Contains(body, "RECLAIM_WEBHOOK_ALLOW_INSECURE")) {
				t.Errorf("refused with %d, not naming the variable:\n%s", status, body)
			}
		})
	}
}

// devEnvMap is what make run gives the service on addr (devEnv), as a map
// for serveWith.
func devEnvMap(dir, addr string, set map[string]string) map[string]string {
	base := map[string]string{"RECLAIM_DATA_DIR": dir, "RECLAIM_ADDR": addr, "RECLAIM_METRICS_ADDR": "off"}
	for k, v := range set {
		base[k] = v
	}
	getenv := devEnv(func(k string) string { return base[k] }, config.Config{Addr: addr}, "http://127.0.0.1:9", "http://127.0.0.1:5173", "off")
	out := map[string]string{}
	for _, k := range []string{"RECLAIM_DATA_DIR", "RECLAIM_ADDR", "RECLAIM_METRICS_ADDR", "RECLAIM_WEBHOOK_ALLOW_INSECURE", "RECLAIM_SIGN_URL", "SOLANA_RPC_URL"} {
		out[k] = getenv(k)
	}
	return out
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]*)"`)

// consoleAddWebhook signs in to the console as a person would and adds a
// webhook endpoint on the project's Webhooks page; it returns the answer.
func consoleAddWebhook(t *testing.T, base, email, password, projectID, hook string) (int, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	page := func(path string) string {
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		m := csrfField.FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("GET %s: %d, no form:\n%s", path, resp.StatusCode, b)
		}
		return m[1]
	}
	submit := func(path string, form url.Values) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	submit("/admin/signin", url.Values{"csrf_token": {page("/admin/signin")}, "email": {email}, "password": {password}})
	hooks := "/admin/projects/" + projectID + "/webhooks"
	return submit(hooks, url.Values{"csrf_token": {page(hooks)}, "url": {hook}})
}
