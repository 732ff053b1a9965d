package main

import (
	"regexp"
	"strings"
	"testing"
)

// webhooks add prints an endpoint's id and its secret once; list shows it
// without the URL's query; rotate-secret prints a new secret; remove takes
// it away; private and http URLs are refused unless allowed.
func TestCLIWebhooks(t *testing.T) {
	dir := t.TempDir()
	p, err := cli(t, dir, "project", "create", "--name", "Acme")
	if err != nil {
		t.Fatal(err)
	}
	p = strings.TrimSpace(p)
	rejected := []struct {
		args []string
		want string
	}{
		{[]string{"add", "--url", "https://hooks.example/x"}, "--project is required"},
		{[]string{"add", "--project", p}, "--url is required"},
		{[]string{"add", "--project", p, "--url", "http://127.0.0.1:9/hook"}, "reclaim webhooks add checks the URL itself: for a local receiver run it with --allow-insecure"},
		{[]string{"add", "--project", p, "--url", "https://127.0.0.1:9/hook"}, "public"},
		{[]string{"add", "--project", p, "--url", "http://127.0.0.1:9/hook", "--allow-insecure", "--event", "nope"}, "nope"},
		{[]string{"remove", "--project", p}, "--id is required"},
		{[]string{"remove", "--project", p, "--id", "whe_nope"}, "no such webhook endpoint"},
		{[]string{"frob"}, "unknown command frob"},
	}
	for _, c := range rejected {
		if out, err := cli(t, dir, append([]string{"webhooks"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) || out != "" {
			t.Errorf("%q: %q, %v; want an error containing %q", c.args, out, err, c.want)
		}
	}
	out, err := cli(t, dir, "webhooks", "add", "--project", p, "--url", "http://127.0.0.1:9/hook?token=s3cret", "--allow-insecure", "--event", "submission.confirmed")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !regexp.MustCompile(`^whsec_[A-Za-z0-9+/=]{32,}$`).MatchString(lines[1]) {
		t.Fatalf("add printed %q: want the id, then a whsec_ secret", out)
	}
	id := lines[0]
	list, err := cli(t, dir, "webhooks", "list", "--project", p)
	if err != nil || !strings.Contains(list, id) || !strings.Contains(list, "submission.confirmed") || strings.Contains(list, "s3cret") || strings.Contains(list, "whsec_") {
		t.Fatalf("list: %q, %v: want the endpoint, its events, no query and no secret", list, err)
	}
	rotated, err := cli(t, dir, "webhooks", "rotate-secret", "--project", p, "--id", id)
	if err != nil || !strings.HasPrefix(rotated, "whsec_") || strings.TrimSpace(rotated) == lines[1] {
		t.Fatalf("rotate-secret: %q, %v: want a new secret", rotated, err)
	}
	if out, err := cli(t, dir, "webhooks", "remove", "--project", p, "--id", id); err != nil || out != id+"\n" {
		t.Fatalf("remove: %q, %v", out, err)
	}
	if list, err := cli(t, dir, "webhooks", "list", "--project", p); err != nil || strings.Contains(list, id) {
		t.Fatalf("list after remove: %q, %v", list, err)
	}
}
