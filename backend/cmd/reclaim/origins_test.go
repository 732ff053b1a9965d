package main

import (
	"strings"
	"testing"
)

// project origin adds and removes a project's browser origins as the
// console does, printing each as stored.
func TestCLIProjectOrigin(t *testing.T) {
	dir := t.TempDir()
	p, err := cli(t, dir, "project", "create", "--name", "Acme")
	if err != nil {
		t.Fatal(err)
	}
	p = strings.TrimSpace(p)
	if out, err := cli(t, dir, "project", "origin", "--project", p, "--origin", "HTTP://LocalHost:5173/"); err != nil || out != "http://localhost:5173\n" {
		t.Fatalf("add: %q, %v", out, err)
	}
	rejected := []struct {
		args []string
		want string
	}{
		{[]string{"--project", p}, "--project and --origin are required"},
		{[]string{"--project", p, "--origin", "localhost:5173"}, "scheme must be http or https"},
		{[]string{"--project", p, "--origin", "http://localhost:5173"}, "lists http://localhost:5173 already"},
		{[]string{"--project", "prj_nope", "--origin", "http://localhost:5173"}, "no project prj_nope"},
		{[]string{"--project", p, "--origin", "http://localhost:9", "--remove"}, "does not list"},
	}
	for _, c := range rejected {
		if out, err := cli(t, dir, append([]string{"project", "origin"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) || out != "" {
			t.Errorf("%q: %q, %v; want an error containing %q", c.args, out, err, c.want)
		}
	}
	if out, err := cli(t, dir, "project", "origin", "--project", p, "--origin", "http://localhost:5173", "--remove"); err != nil || out != "http://localhost:5173\n" {
		t.Errorf("remove: %q, %v", out, err)
	}
}
