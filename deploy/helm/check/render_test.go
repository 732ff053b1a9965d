package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
)

// chartDir is the chart under test.
const chartDir = "../reclaim"

// kubeVersion is the oldest Kubernetes the chart supports (Chart.yaml's
// kubeVersion: preStop's sleep action): it renders for that one.
var kubeVersion = &chartutil.KubeVersion{Version: "v1.30.0", Major: "1", Minor: "30"}

// valuesFiles are the chart's own values files: each must lint, render and
// decode. "" is the default values alone.
func valuesFiles(t *testing.T) []string {
	t.Helper()
	files := []string{""}
	for _, pattern := range []string{"values-*.yaml", "ci/*-values.yaml"} {
		m, err := filepath.Glob(filepath.Join(chartDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 3 {
		t.Fatalf("values files %q: want the defaults and ci/*-values.yaml", files)
	}
	return files
}

// readValues reads a values file ("" for none).
func readValues(t *testing.T, file string) map[string]any {
	t.Helper()
	if file == "" {
		return map[string]any{}
	}
	v, err := chartutil.ReadValuesFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// render is `helm template` (hooks included) of the chart at dir with vals
// on top of its values.yaml, as helm's own command does it.
func render(t *testing.T, dir string, vals map[string]any) (string, error) {
	t.Helper()
	chrt, err := loader.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &action.Configuration{
		Releases:   storage.Init(driver.NewMemory()),
		KubeClient: &fake.PrintingKubeClient{Out: io.Discard},
		Log:        func(string, ...any) {},
	}
	inst := action.NewInstall(cfg)
	inst.DryRun, inst.ClientOnly, inst.Replace = true, true, true
	inst.ReleaseName, inst.Namespace = "reclaim", "reclaim"
	inst.KubeVersion = kubeVersion
	rel, err := inst.Run(chrt, vals)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(rel.Manifest)
	for _, h := range rel.Hooks {
		b.WriteString("\n---\n# Source: " + h.Path + "\n" + h.Manifest + "\n")
	}
	return b.String(), nil
}

// lint is `helm lint --strict` of the chart at dir with vals.
func lint(dir string, vals map[string]any) []error {
	l := action.NewLint()
	l.Strict, l.KubeVersion, l.Namespace = true, kubeVersion, "reclaim"
	return l.Run([]string{dir}, vals).Errors
}
