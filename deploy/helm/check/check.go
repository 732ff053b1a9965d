// Command check decodes every Kubernetes object in a rendered chart (`helm
// template` on stdin, or the files named) strictly into its typed API
// object: an unknown or repeated field, a value of the wrong type, or a kind
// the API does not have fails it. Nothing is fetched: the types are those of
// k8s.io/api at this module's version.
//
//	go tool -modfile=deploy/helm/check/go.mod helm template r deploy/helm/reclaim | go run ./deploy/helm/check
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

func main() {
	var in []byte
	var err error
	if len(os.Args) > 1 {
		var buf bytes.Buffer
		for _, name := range os.Args[1:] {
			b, rerr := os.ReadFile(name)
			if rerr != nil {
				fmt.Fprintln(os.Stderr, rerr)
				os.Exit(2)
			}
			buf.Write(b)
			buf.WriteString("\n---\n")
		}
		in = buf.Bytes()
	} else if in, err = io.ReadAll(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	objs, err := Validate(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d objects decoded strictly\n", len(objs))
}

// strict decodes YAML or JSON into the registered types, failing on unknown
// and duplicate fields as well as wrong types.
var strict = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// Validate decodes each document of a YAML stream strictly and returns the
// objects; its error names every document that failed, by kind and name.
func Validate(manifest []byte) ([]runtime.Object, error) {
	r := utilyaml.NewYAMLReader(bufioReader(manifest))
	var objs []runtime.Object
	var errs []error
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if empty(doc) {
			continue
		}
		obj, gvk, err := strict.Decode(doc, nil, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("document %d (%s): %w", i, describe(doc, gvk), err))
			continue
		}
		objs = append(objs, obj)
	}
	if len(objs) == 0 && len(errs) == 0 {
		return nil, errors.New("no objects in the input")
	}
	return objs, errors.Join(errs...)
}

// empty reports whether a document holds only comments and blank lines.
func empty(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && line != "---" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }
