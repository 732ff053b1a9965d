// Package docs holds the tests of the repository's documentation: that
// backend/README.md names every package, that every link in every Markdown
// file resolves inside the repository, and that docs/decisions.md stays a
// list of short decisions.
package docs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// root is the repository, seen from this package's folder.
const root = ".."

// skipped are the folders whose Markdown is not ours: installed npm
// packages and the generated TypeScript client's dependencies.
func skipped(rel string) bool {
	base := path.Base(rel)
	return base == ".git" || base == "node_modules" || rel == "gen/ts"
}

// Every folder of backend/ with a non-test .go file is a package, and
// backend/README.md has a row for it; every row names a package that exists.
func TestBackendREADMENamesEveryPackage(t *testing.T) {
	t.Parallel()
	packages := backendPackages(t)
	readme := readFile(t, "backend/README.md")
	row := regexp.MustCompile("(?m)^\\| `(backend/[^`]+)` \\|")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(readme, -1) {
		listed = append(listed, m[1])
	}
	for _, p := range packages {
		if !slices.Contains(listed, p) {
			t.Errorf("backend/README.md has no row for the package %s: add `| `%s` | tier | what it is |` to its table", p, p)
		}
	}
	for _, p := range listed {
		if !slices.Contains(packages, p) {
			t.Errorf("backend/README.md has a row for %s, which is no package (no non-test .go file there): remove it", p)
		}
	}
}

func backendPackages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(root, "backend"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			rel := repoPath(t, filepath.Dir(p))
			if !slices.Contains(out, rel) {
				out = append(out, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("found no package under backend/")
	}
	return out
}

// markdownFiles lists every Markdown file of the repository, as paths
// relative to its root with forward slashes.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := repoPath(t, p)
		if d.IsDir() && rel != "." && skipped(rel) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(out, "README.md") {
		t.Fatalf("README.md not among the Markdown files found: %v", out)
	}
	return out
}

// Every relative link of every Markdown file names a file inside the
// repository that exists and, when it carries #anchor into a Markdown
// file, a heading (or an <a id>) of that file.
func TestLinksResolve(t *testing.T) {
	t.Parallel()
	anchors := map[string][]string{}
	for _, file := range markdownFiles(t) {
		for _, link := range links(readFile(t, file)) {
			if problem := checkLink(t, file, link, anchors); problem != "" {
				t.Errorf("%s: link (%s) %s", file, link, problem)
			}
		}
	}
}

func checkLink(t *testing.T, file, link string, anchors map[string][]string) string {
	t.Helper()
	target, anchor, _ := strings.Cut(link, "#")
	rel := file
	if target != "" {
		rel = path.Join(path.Dir(file), target)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "points outside the repository: a clone has nothing there; say what the reader needs here instead"
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			return fmt.Sprintf("names %s, which does not exist", rel)
		}
	}
	if anchor == "" || !strings.HasSuffix(rel, ".md") {
		return ""
	}
	if _, ok := anchors[rel]; !ok {
		anchors[rel] = headingAnchors(readFile(t, rel))
	}
	if !slices.Contains(anchors[rel], anchor) {
		return fmt.Sprintf("names the heading #%s, which %s does not have", anchor, rel)
	}
	return ""
}

var (
	fence      = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`(?m)^\s*\[[^\]]+\]:\s*(\S+)`)
	scheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// links returns the relative link targets of a Markdown text, leaving out
// code (fenced and inline) and absolute URLs.
func links(text string) []string {
	text = fence.ReplaceAllString(text, "")
	text = inlineCode.ReplaceAllString(text, "``")
	var out []string
	for _, re := range []*regexp.Regexp{inlineLink, refLink} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if !scheme.MatchString(m[1]) {
				out = append(out, strings.Trim(m[1], "<>"))
			}
		}
	}
	return out
}

var (
	heading  = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	htmlID   = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	textLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// headingAnchors returns the anchors GitHub gives a Markdown text's
// headings, numbered -1, -2... when a slug repeats, and its <a id>s.
func headingAnchors(text string) []string {
	text = fence.ReplaceAllString(text, "")
	seen := map[string]int{}
	var out []string
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", s, n))
		} else {
			out = append(out, s)
		}
		seen[s]++
	}
	for _, m := range htmlID.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// slug is GitHub's anchor of a heading: its text as rendered (links become
// their text, code and emphasis marks go), lower-cased, punctuation dropped
// but for - and _, each space a -.
func slug(h string) string {
	h = textLink.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]string{
		"Validation and limits":                  "validation-and-limits",
		"Reclaiming (assets, build, submit)":     "reclaiming-assets-build-submit",
		"Test-only methods (`validator_*`)":      "test-only-methods-validator_",
		"Agents: MCP":                            "agents-mcp",
		"Deployment: the image and the topology": "deployment-the-image-and-the-topology",
		"See [the guide](x.md) now":              "see-the-guide-now",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}

// Nothing in the docs or the lint configuration points at the customer's
// folder beside the checkout: a clone does not have it.
func TestNothingPointsOutside(t *testing.T) {
	t.Parallel()
	files := append(markdownFiles(t), ".golangci.yml")
	for _, file := range files {
		text := readFile(t, file)
		for _, outside := range []string{"../shared", "STYLE.md", "interface-v1.md"} {
			if strings.Contains(text, outside) {
				t.Errorf("%s mentions %s, outside the repository: say what the reader needs in our own words", file, outside)
			}
		}
	}
}

// maxDecision is the longest a decision of docs/decisions.md may be: a line
// or two with its reason; longer reasoning goes to a topic file under
// docs/decisions/.
const maxDecision = 400

// Every table cell and every paragraph or list item of docs/decisions.md
// is at most maxDecision characters.
func TestDecisionsAreShort(t *testing.T) {
	t.Parallel()
	for _, block := range decisionBlocks(readFile(t, "docs/decisions.md")) {
		if n := utf8.RuneCountInString(block); n > maxDecision {
			t.Errorf("docs/decisions.md: a decision of %d characters (at most %d; move the reasoning to docs/decisions/<topic>.md): %.120s...", n, maxDecision, block)
		}
	}
}

// decisionBlocks splits a Markdown text into its table cells and its
// paragraphs and list items (lines joined).
func decisionBlocks(text string) []string {
	var out []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, strings.Join(para, " "))
			para = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			flush()
		case strings.HasPrefix(line, "|"):
			flush()
			out = append(out, cells(line)...)
		case strings.HasPrefix(line, "- "):
			flush()
			para = append(para, line)
		default:
			para = append(para, line)
		}
	}
	flush()
	return out
}

// cells splits a table row on the pipes that are not escaped (\|) and not
// inside inline code.
func cells(row string) []string {
	var out []string
	var cell strings.Builder
	code := false
	prev := rune(0)
	for _, r := range strings.Trim(row, "|") {
		switch {
		case r == '`':
			code = !code
		case r == '|' && !code && prev != '\\':
			out = append(out, strings.TrimSpace(cell.String()))
			cell.Reset()
			prev = r
			continue
		}
		cell.WriteRune(r)
		prev = r
	}
	return append(out, strings.TrimSpace(cell.String()))
}

func TestDecisionBlocks(t *testing.T) {
	t.Parallel()
	got := decisionBlocks("# T\n\nintro\ngoes on\n\n| a | b `x|y` \\| c |\n|---|---|\n- one\n  more\n- two\n")
	want := []string{"intro goes on", "a", "b `x|y` \\| c", "---", "---", "- one more", "- two"}
	if !slices.Equal(got, want) {
		t.Errorf("decisionBlocks = %q, want %q", got, want)
	}
}

func readFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func repoPath(t *testing.T, p string) string {
	t.Helper()
	rel, err := filepath.Rel(root, p)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}
