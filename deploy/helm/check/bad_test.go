package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The strict decoding fails a rendered object with a field the API does
// not have, or a value of the wrong type: the chart's own output, changed
// after rendering as a mistaken template would have written it.
func TestStrictDecodingFailsBadObjects(t *testing.T) {
	manifest, err := render(t, chartDir, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Validate([]byte(manifest)); err != nil {
		t.Fatalf("the chart's output: %v", err)
	}
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"unknown field", "\n  revisionHistoryLimit: 5\n", "\n  revisionHistoryLimit: 5\n  revisionHistoryLimt: 5\n", `unknown field "spec.revisionHistoryLimt"`},
		{"misplaced field", "\n            readOnlyRootFilesystem: true\n", "\n            readOnlyRootFilesystem: true\n            readOnlyRootFileSystem: true\n", `unknown field "spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem"`},
		{"wrong type", "\n          args: [\"serve\"]\n", "\n          args: serve\n", "cannot unmarshal string into Go struct field Container.spec.template.spec.containers.args of type []string"},
		{"number as text", "\n      port: 80\n", "\n      port: \"80\"\n", "of type int32"},
		{"repeated field", "\n  revisionHistoryLimit: 5\n", "\n  revisionHistoryLimit: 5\n  revisionHistoryLimit: 6\n", `key "revisionHistoryLimit" already set in map`},
		{"unknown kind", "\nkind: PodDisruptionBudget\n", "\nkind: PodDisruptionBudgets\n", "no kind \"PodDisruptionBudgets\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(manifest, c.old) {
				t.Fatalf("%q is not in the chart's output", c.old)
			}
			_, err := Validate([]byte(strings.Replace(manifest, c.old, c.new, 1)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v; want an error holding %s", err, c.want)
			}
		})
	}
}

// Each fixture of testdata/bad-values is refused by helm template, and by
// helm lint --strict, with the message its first line names: by the values
// schema, or by a template's own check ("# lint: info" on the second line:
// helm lint reports a template's fail as information only). They are apart
// from the chart's values files, which must all pass.
func TestBadValuesRefused(t *testing.T) {
	files, err := filepath.Glob("testdata/bad-values/*.yaml")
	if err != nil || len(files) < 5 {
		t.Fatalf("fixtures %q, %v", files, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(b), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("first line %q: want \"# want: <the error's words>\"", first)
			}
			var vals map[string]any
			if err := yaml.Unmarshal(b, &vals); err != nil {
				t.Fatal(err)
			}
			if _, err := render(t, chartDir, vals); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("helm template: %v; want an error holding %q", err, want)
			}
			if strings.Contains(string(b), "\n# lint: info\n") {
				return
			}
			if err := errors.Join(lint(chartDir, vals)...); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("helm lint --strict: %v; want an error holding %q", err, want)
			}
		})
	}
}
