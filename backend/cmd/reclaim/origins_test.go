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

// project limits shows a project's quota, sets its own and returns it to
// the default, refusing what no bucket can keep.
func TestCLIProjectLimits(t *testing.T) {
	dir := t.TempDir()
	p, err := cli(t, dir, "project", "create", "--name", "Acme")
	if err != nil {
		t.Fatal(err)
	}
	p = strings.TrimSpace(p)
	out, err := cli(t, dir, "project", "limits", "--project", p)
	if err != nil || !strings.HasPrefix(out, p+": 200 requests/s, burst 400 (the default") || !strings.Contains(out, "each wallet 10/s, burst 20") {
		t.Fatalf("show the default: %q, %v", out, err)
	}
	out, err = cli(t, dir, "project", "limits", "--project", p, "--rps", "1000", "--burst", "3000")
	if err != nil || !strings.HasPrefix(out, p+": 1000 requests/s, burst 3000 (its own, set ") || !strings.Contains(out, "each wallet 50/s, burst 150") {
		t.Fatalf("set: %q, %v", out, err)
	}
	if out, err = cli(t, dir, "project", "limits", "--project", p); err != nil || !strings.Contains(out, "1000 requests/s, burst 3000 (its own") {
		t.Fatalf("show its own: %q, %v", out, err)
	}
	rejected := []struct {
		args []string
		want string
	}{
		{nil, "--project is required"},
		{[]string{"--project", p, "--rps", "10"}, "give --rps and --burst together"},
		{[]string{"--project", p, "--rps", "10", "--burst", "20", "--default"}, "not both"},
		{[]string{"--project", p, "--rps", "-1", "--burst", "20"}, "the rate must be above 0"},
		{[]string{"--project", p, "--rps", "0", "--burst", "3"}, "the rate must be above 0"},
		{[]string{"--project", p, "--burst", "3"}, "give --rps and --burst together"},
		{[]string{"--project", p, "--rps", "100", "--burst", "20"}, "the burst (20) must be at least the rate (100"},
		{[]string{"--project", "prj_nope", "--rps", "10", "--burst", "20"}, "no project prj_nope"},
	}
	for _, c := range rejected {
		if out, err := cli(t, dir, append([]string{"project", "limits"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) || out != "" {
			t.Errorf("%q: %q, %v; want an error containing %q", c.args, out, err, c.want)
		}
	}
	if out, err = cli(t, dir, "project", "limits", "--project", p, "--default"); err != nil || !strings.Contains(out, "200 requests/s, burst 400 (the default") {
		t.Fatalf("back to the default: %q, %v", out, err)
	}
}
