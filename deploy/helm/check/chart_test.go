package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The chart's own values files lint clean under --strict, render, and every
// object they render decodes strictly and keeps the rules below.
func TestChartValuesFiles(t *testing.T) {
	for _, file := range valuesFiles(t) {
		name := file
		if name == "" {
			name = "defaults"
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			vals := readValues(t, file)
			if errs := lint(chartDir, vals); len(errs) > 0 {
				t.Fatalf("helm lint --strict: %v", errs)
			}
			manifest, err := render(t, chartDir, vals)
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			objs, err := Validate([]byte(manifest))
			if err != nil {
				t.Fatalf("strict decoding: %v\n%s", err, manifest)
			}
			checkRules(t, objs)
		})
	}
}

// rendered sorts a release's objects by kind.
type rendered struct {
	deployment *appsv1.Deployment
	job        *batchv1.Job
	hpa        *autoscalingv2.HorizontalPodAutoscaler
	pdb        *policyv1.PodDisruptionBudget
	services   int
}

func sortObjects(t *testing.T, objs []runtime.Object) rendered {
	t.Helper()
	var r rendered
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			r.deployment = o
		case *batchv1.Job:
			r.job = o
		case *autoscalingv2.HorizontalPodAutoscaler:
			r.hpa = o
		case *policyv1.PodDisruptionBudget:
			r.pdb = o
		case *corev1.Service:
			r.services++
		}
	}
	if r.deployment == nil || r.job == nil || r.services != 1 {
		t.Fatalf("want a Deployment, a migration Job and a Service; got %+v", r)
	}
	return r
}

// checkRules checks what the issue asks of every install: probes at the
// service's paths, nobody root, requests and limits, the drain's time, the
// migrations in a hook Job and not in the instances, no replicas under an HPA.
func checkRules(t *testing.T, objs []runtime.Object) {
	t.Helper()
	r := sortObjects(t, objs)
	d := r.deployment
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("readiness probe %+v: want GET /readyz", c.ReadinessProbe)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("liveness probe %+v: want GET /healthz", c.LivenessProbe)
	}
	for _, p := range []struct {
		name string
		pod  corev1.PodSpec
	}{{"instances", pod}, {"migration job", r.job.Spec.Template.Spec}} {
		checkPod(t, p.name, p.pod)
	}
	env := envOf(c)
	if env["RECLAIM_SKIP_MIGRATIONS"] != "true" {
		t.Errorf("instances: RECLAIM_SKIP_MIGRATIONS %q: want true (the Job migrates)", env["RECLAIM_SKIP_MIGRATIONS"])
	}
	for _, name := range []string{"DATABASE_URL", "RECLAIM_SIGNING_KEY", "RECLAIM_API_KEY_PEPPER"} {
		if !fromSecret(c, name) {
			t.Errorf("instances: %s not from a Secret", name)
		}
	}
	// The drain: preStop, then the service's delay and timeout, then 5 s for
	// what still runs, then up to 6 s for the exporters.
	delay, timeout := atoi(t, env["RECLAIM_SHUTDOWN_DELAY_SECONDS"]), atoi(t, env["RECLAIM_SHUTDOWN_TIMEOUT_SECONDS"])
	preStop := 0
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
		if c.Lifecycle.PreStop.Sleep == nil {
			t.Errorf("preStop %+v: want the sleep action (the image has no shell)", c.Lifecycle.PreStop)
		} else {
			preStop = int(c.Lifecycle.PreStop.Sleep.Seconds)
		}
	}
	if grace := pod.TerminationGracePeriodSeconds; grace == nil || int(*grace) <= preStop+delay+timeout+11 {
		t.Errorf("terminationGracePeriodSeconds %v: want more than preStop %d + delay %d + timeout %d + 11", grace, preStop, delay, timeout)
	}
	job := r.job
	if hook := job.Annotations["helm.sh/hook"]; hook != "pre-install,pre-upgrade" {
		t.Errorf("migration job hook %q", hook)
	}
	jc := job.Spec.Template.Spec.Containers[0]
	if !slices.Equal(jc.Args, []string{"migrate"}) || jc.Image != c.Image {
		t.Errorf("migration job runs %q %v; want %s migrate", jc.Image, jc.Args, c.Image)
	}
	// The Job sees the instances' configuration, but for what the chart
	// sets for the instances alone.
	jenv := envOf(jc)
	for name, v := range env {
		switch name {
		case "RECLAIM_ADDR", "RECLAIM_METRICS_ADDR", "RECLAIM_SKIP_MIGRATIONS", "RECLAIM_SHUTDOWN_DELAY_SECONDS", "RECLAIM_SHUTDOWN_TIMEOUT_SECONDS":
			continue
		}
		if jenv[name] != v {
			t.Errorf("migration job %s=%q; the instances have %q", name, jenv[name], v)
		}
	}
	if r.hpa != nil {
		if d.Spec.Replicas != nil {
			t.Errorf("replicas %d with an HPA: want it unset", *d.Spec.Replicas)
		}
		if r.hpa.Spec.ScaleTargetRef.Name != d.Name {
			t.Errorf("HPA scales %q", r.hpa.Spec.ScaleTargetRef.Name)
		}
	} else if d.Spec.Replicas == nil {
		t.Error("no HPA and no replicas")
	}
	if r.pdb != nil && r.pdb.Spec.Selector.MatchLabels["app.kubernetes.io/name"] != d.Spec.Selector.MatchLabels["app.kubernetes.io/name"] {
		t.Errorf("PDB selects %v, the Deployment %v", r.pdb.Spec.Selector, d.Spec.Selector)
	}
	if job.Spec.Template.Labels["app.kubernetes.io/name"] == d.Spec.Selector.MatchLabels["app.kubernetes.io/name"] {
		t.Error("the migration job's pod carries the instances' labels: the Service and the PDB would select it")
	}
}

// checkPod: no container runs as root or can become it, writes its root
// filesystem, or keeps a capability; each has requests and limits.
func checkPod(t *testing.T, name string, pod corev1.PodSpec) {
	t.Helper()
	if psc := pod.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("%s: pod security context %+v: want non-root", name, psc)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("%s: a service account token is mounted", name)
	}
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		sc := c.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
			t.Errorf("%s: container %s security context %+v", name, c.Name, sc)
		}
		for _, kind := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if _, ok := c.Resources.Requests[kind]; !ok {
				t.Errorf("%s: container %s has no %s request", name, c.Name, kind)
			}
		}
		if _, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
			t.Errorf("%s: container %s has no memory limit", name, c.Name)
		}
	}
}

func envOf(c corev1.Container) map[string]string {
	env := map[string]string{}
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			v = "secret:" + e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		}
		env[e.Name] = v
	}
	return env
}

func fromSecret(c corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
		}
	}
	return false
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

// The optional objects render when enabled and not otherwise, and the
// Deployment leaves replicas to the HPA.
func TestOptionalObjects(t *testing.T) {
	for _, c := range []struct {
		vals          map[string]any
		hpa, pdb, ing bool
	}{
		{vals: map[string]any{}, pdb: true},
		{vals: map[string]any{"autoscaling": map[string]any{"enabled": true}, "ingress": map[string]any{"enabled": true}}, hpa: true, pdb: true, ing: true},
		{vals: map[string]any{"podDisruptionBudget": map[string]any{"enabled": false}}},
	} {
		manifest, err := render(t, chartDir, c.vals)
		if err != nil {
			t.Fatalf("%v: %v", c.vals, err)
		}
		objs, err := Validate([]byte(manifest))
		if err != nil {
			t.Fatalf("%v: %v", c.vals, err)
		}
		checkRules(t, objs)
		var hpa, pdb, ing bool
		for _, o := range objs {
			switch o.GetObjectKind().GroupVersionKind().Kind {
			case "HorizontalPodAutoscaler":
				hpa = true
			case "PodDisruptionBudget":
				pdb = true
			case "Ingress":
				ing = true
			}
		}
		if hpa != c.hpa || pdb != c.pdb || ing != c.ing {
			t.Errorf("%v: HPA %v, PDB %v, Ingress %v; want %v %v %v", c.vals, hpa, pdb, ing, c.hpa, c.pdb, c.ing)
		}
	}
}

// Every setting of the README's configuration table is reachable through
// values: in config, by reference in secrets.keys, or set by the chart.
func TestEverySettingReachable(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(readme), "\n## Configuration\n")
	table, _, _ = strings.Cut(table, "\n## ")
	vars := regexp.MustCompile("(?m)^\\| `([A-Z][A-Z0-9_]+)` \\|").FindAllStringSubmatch(table, -1)
	if len(vars) < 40 {
		t.Fatalf("found %d settings in the README's table", len(vars))
	}
	b, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	type props struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var schema struct {
		Properties struct {
			Config  props `json:"config"`
			Secrets struct {
				Properties struct {
					Keys props `json:"keys"`
				} `json:"properties"`
			} `json:"secrets"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	// The chart's own: the listen addresses, the drain and the migrations.
	bySelf := []string{"RECLAIM_ADDR", "RECLAIM_METRICS_ADDR", "RECLAIM_SHUTDOWN_DELAY_SECONDS", "RECLAIM_SHUTDOWN_TIMEOUT_SECONDS", "RECLAIM_SKIP_MIGRATIONS"}
	for _, m := range vars {
		name := m[1]
		_, inConfig := schema.Properties.Config.Properties[name]
		_, inSecrets := schema.Properties.Secrets.Properties.Keys.Properties[name]
		if !inConfig && !inSecrets && !slices.Contains(bySelf, name) {
			t.Errorf("%s (README) cannot be set through the chart's values", name)
		}
	}
}
