package main

import (
	"bytes"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// describe names a document by what it says it is: kind and name (and the
// template's source comment helm puts first), for the error.
func describe(doc []byte, gvk *schema.GroupVersionKind) string {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = yaml.Unmarshal(doc, &head)
	what := fmt.Sprintf("%s %s/%s", head.APIVersion, head.Kind, head.Metadata.Name)
	if gvk != nil && gvk.Kind != "" {
		what = fmt.Sprintf("%s %s/%s", gvk.GroupVersion(), gvk.Kind, head.Metadata.Name)
	}
	if first, _, ok := bytes.Cut(doc, []byte("\n")); ok && bytes.HasPrefix(first, []byte("# Source: ")) {
		what += ", " + string(bytes.TrimPrefix(first, []byte("# ")))
	}
	return what
}
