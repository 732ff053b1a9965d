package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every setting the service reads is in the README's configuration table:
// the variables Load asks for (whatever the branch: it reads each one
// once), and every variable name this package's source quotes, so that a
// setting read only on some path is not missed either.
func TestREADMEListsEverySetting(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	if _, err := Load(func(k string) string { read[k] = true; return "" }); err != nil {
		t.Fatal(err)
	}
	for _, name := range quotedVariables(t) {
		read[name] = true
	}
	listed := readmeSettings(t)
	var missing []string
	for name := range read {
		if !listed[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("README.md's configuration table does not list %s: add a row for each (variable, default, meaning)", strings.Join(missing, ", "))
	}
	if len(read) < 40 {
		t.Errorf("found %d settings: the test no longer sees what Load reads", len(read))
	}
}

// quotedVariables are the string literals of this package's source that
// are variable names: upper case with an underscore (RECLAIM_ADDR,
// DATABASE_URL).
func quotedVariables(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && name.MatchString(s) {
					out = append(out, s)
				}
			}
			return true
		})
	}
	return out
}

// readmeSettings are the variables of the rows of the README's
// "## Configuration" table.
func readmeSettings(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Configuration\n")
	if !ok {
		t.Fatal("README.md has no ## Configuration section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([A-Z][A-Z0-9_]*)`")
	listed := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		listed[m[1]] = true
	}
	return listed
}
