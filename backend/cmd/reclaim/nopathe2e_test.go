package main

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is this repository's module path (go.mod).
const module = "github.com/reclaim-sol/reclaim"

// Nothing the binaries are built from names a path under e2e/: the product
// must not depend on its test suite by path (the local validator lives in
// backend/localvalidator). It reads every non-test file of every package of
// this module that a command under backend/cmd imports, directly or not
// (packages only tests import, as backend/chain/mplref, are not built into
// a binary), and refuses a string literal that names e2e or a path in it.
func TestBinariesNameNoPathUnderE2E(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..")
	cmds, err := os.ReadDir(filepath.Join(root, "backend", "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	var queue []string
	for _, e := range cmds {
		if e.IsDir() {
			queue = append(queue, path.Join("backend", "cmd", e.Name()))
		}
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		for _, file := range packageFiles(t, root, pkg) {
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, module+"/") {
					queue = append(queue, strings.TrimPrefix(p, module+"/"))
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && namesE2E(s) {
					t.Errorf("%s names %s, a path under e2e/: the product must not depend on its tests by path; move what it needs out of e2e/", fset.Position(lit.Pos()), lit.Value)
				}
				return true
			})
		}
	}
	if !seen["backend/cmd/reclaim"] || !seen["backend/localvalidator"] {
		t.Fatalf("read %d packages, not the binary and the local validator: %v", len(seen), seen)
	}
}

// packageFiles lists the non-test Go files of the package in root/pkg that
// a build on this machine compiles.
func packageFiles(t *testing.T, root, pkg string) []string {
	t.Helper()
	dir := filepath.Join(root, filepath.FromSlash(pkg))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil {
			t.Fatal(err)
		} else if ok {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// namesE2E reports whether s is e2e or a path in or through it.
func namesE2E(s string) bool {
	s = strings.ReplaceAll(s, `\`, "/")
	return s == "e2e" || strings.HasPrefix(s, "e2e/") || strings.HasSuffix(s, "/e2e") || strings.Contains(s, "/e2e/")
}

func TestNamesE2E(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"e2e": true, "e2e/validator": true, "../../e2e": true, "../e2e/mplclients/x.js": true, `e2e\validator`: true,
		"backend/localvalidator": false, "e2ee": false, "te2e/x": false, "x/e2e2": false, "": false,
	} {
		if got := namesE2E(s); got != want {
			t.Errorf("namesE2E(%q) = %v, want %v", s, got, want)
		}
	}
}
