package main

import "testing"

// Validate reads whatever a template can print: it never panics, and what it
// accepts is at least one object with a kind.
func FuzzValidate(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  ports:\n    - port: 80\n"))
	f.Add([]byte("---\n# Source: x\n---\napiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: \"2\"\n"))
	f.Add([]byte("apiVersion: policy/v1\nkind: PodDisruptionBudget\nspec: [1, 2]\n---\n{\"kind\": 3}\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		objs, err := Validate(b)
		if err == nil && len(objs) == 0 {
			t.Fatal("accepted no objects")
		}
		for _, o := range objs {
			if o.GetObjectKind().GroupVersionKind().Kind == "" {
				t.Fatalf("accepted an object without a kind: %#v", o)
			}
		}
	})
}
