package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// golden writes the exchanges of one section of the flow to its file,
// testdata/golden/<section>.golden, and compares or rewrites it.
type golden struct {
	t        *testing.T
	e        *env
	rest, h2 *http.Client
	norm     *normalizer
	out      strings.Builder
	// stopped names the section that stopped before its end (shared by
	// every section of the test): the sections after it, which build on its
	// state, are not run.
	stopped *string
}

// newGolden is the recorder of a test's sections, on e.
func newGolden(e *env, rest, h2 *http.Client, norm *normalizer, stopped *string) *golden {
	return &golden{e: e, rest: rest, h2: h2, norm: norm, stopped: stopped}
}

// section runs f as the subtest name and checks what it recorded against
// testdata/golden/<name>.golden.
func (g *golden) section(t *testing.T, name string, f func(g *golden)) {
	t.Run(name, func(t *testing.T) {
		if *g.stopped != "" {
			t.Fatalf("not run: section %s stopped before its end", *g.stopped)
		}
		s := newGolden(g.e.with(t), g.rest, g.h2, g.norm, g.stopped)
		s.t, s.norm.fresh = t, nil
		ended := false
		defer func() {
			if !ended {
				*g.stopped = name
			}
		}()
		f(s)
		ended = true
		if len(s.norm.fresh) > 0 {
			s.out.WriteString("## the tokens first seen above: their header and claims (jti is random)\n")
			for _, tok := range s.norm.fresh {
				s.out.WriteString(s.norm.describe(tok))
			}
		}
		compareGolden(t, filepath.Join("testdata", "golden", name+".golden"), s.out.String())
	})
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	i := 0
	for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
		i++
	}
	from := max(0, i-8)
	t.Errorf("answers differ from %s at line %d (rerun with -update only for a deliberate, reviewed change of the contract)\n"+
		"--- want (lines %d-):\n%s\n+++ got:\n%s", path, i+1, from+1,
		strings.Join(wl[from:min(len(wl), i+4)], "\n"), strings.Join(gl[from:min(len(gl), i+4)], "\n"))
}

// send sends c in each of its wires and records every exchange; it returns
// the answers by wire.
func (g *golden) send(c call) map[wire]answer {
	g.t.Helper()
	out := map[wire]answer{}
	for _, w := range []wire{restJSON, connectJSON, connectProto, grpcProto} {
		if c.wires&w == 0 {
			continue
		}
		s := c.request(g.t, w)
		a := g.do(s, w)
		g.record(c.name+" · "+wireNames[w], c.cred.label, s, a, c.op.newResponse)
		out[w] = a
	}
	return out
}

// droppedHeaders are left out of the file: per-run values (Date, request
// id, the WebSocket's accept hash of a random key) and Content-Length, which
// says whether the body was buffered, not what it holds.
var droppedHeaders = map[string]bool{"Date": true, "X-Request-Id": true, "Content-Length": true, "Sec-Websocket-Accept": true}

// record writes one exchange.
func (g *golden) record(name, cred string, s sent, a answer, response func() proto.Message) {
	g.t.Helper()
	fmt.Fprintf(&g.out, "### %s\n> %s %s\n", name, s.method, g.norm.text(s.path))
	if cred != "" {
		fmt.Fprintf(&g.out, "> (credential: %s)\n", cred)
	}
	g.headers("> ", s.header, map[string]bool{"X-Api-Key": true, "Authorization": true, "Te": true})
	switch {
	case s.shown != "":
		fmt.Fprintf(&g.out, "> %s\n", truncate(g.jsonText(s.shown)))
	case len(s.body) > 0 && printable(s.body):
		fmt.Fprintf(&g.out, "> %s\n", truncate(g.jsonText(string(s.body))))
	case len(s.body) > 0:
		fmt.Fprintf(&g.out, "> (hex) %s\n", truncate(hex.EncodeToString(s.body)))
	}
	fmt.Fprintf(&g.out, "< %d\n", a.status)
	g.headers("< ", a.header, droppedHeaders)
	g.body(a.header.Get("Content-Type"), a.body, response)
	g.headers("< trailer ", a.trailer, nil)
	g.out.WriteString("\n")
}

func (g *golden) headers(prefix string, h http.Header, skip map[string]bool) {
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if !skip[k] {
			fmt.Fprintf(&g.out, "%s%s: %s\n", prefix, k, g.norm.text(strings.Join(h[k], ", ")))
		}
	}
}

// body writes an answer's body by its type: JSON indented (jsonIndented),
// protobuf as a hex dump of the message re-encoded deterministically, enveloped
// streams frame by frame, anything else as text.
func (g *golden) body(contentType string, b []byte, response func() proto.Message) {
	if len(b) == 0 {
		return
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "application/json":
		fmt.Fprintf(&g.out, "%s\n", g.jsonIndented(string(b)))
	case "application/proto":
		g.out.WriteString(g.protoDump(b, response))
	case "application/grpc", "application/grpc+proto", "application/connect+json", "application/connect+proto":
		for _, f := range frames(b) {
			fmt.Fprintf(&g.out, "frame flags %#02x, %d bytes\n", f.flags, len(f.payload))
			switch {
			case f.flags == 0 && !strings.HasSuffix(mt, "json"):
				g.out.WriteString(g.protoDump(f.payload, response))
			default:
				fmt.Fprintf(&g.out, "%s\n", g.jsonIndented(string(f.payload)))
			}
		}
	default:
		fmt.Fprintf(&g.out, "%s\n", g.norm.text(string(b)))
	}
}

// jsonText is s with its tokens replaced, compacted when it is JSON:
// protojson varies its whitespace from one build to the next on purpose
// (google.golang.org/protobuf/internal/detrand), so only whitespace outside
// strings is not compared.
func (g *golden) jsonText(s string) string {
	s = g.norm.text(s)
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return s
	}
	return buf.String()
}

// jsonIndented is s as jsonText, indented for reading and diffing (the
// indentation is not the answer's: it is compared without whitespace).
func (g *golden) jsonIndented(s string) string {
	s = g.jsonText(s)
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err != nil {
		return s
	}
	return buf.String()
}

// protoDump is the hex dump of a protobuf message: decoded as response,
// tokens replaced, encoded again deterministically (map entries sorted by
// key: connect-go writes them in Go's random map order).
func (g *golden) protoDump(b []byte, response func() proto.Message) string {
	msg := response()
	if err := proto.Unmarshal(b, msg); err != nil {
		g.t.Fatalf("answer is not a %T: %v", msg, err)
	}
	replaceStrings(msg.ProtoReflect(), g.norm.text)
	out, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		g.t.Fatal(err)
	}
	return hex.Dump(out)
}

// replaceStrings applies f to every string field of m, nested ones included.
func replaceStrings(m protoreflect.Message, f func(string) string) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapValue().Message() != nil {
					replaceStrings(mv.Message(), f)
				}
				return true
			})
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				switch {
				case fd.Message() != nil:
					replaceStrings(l.Get(i).Message(), f)
				case fd.Kind() == protoreflect.StringKind:
					l.Set(i, protoreflect.ValueOfString(f(l.Get(i).String())))
				}
			}
		case fd.Message() != nil:
			replaceStrings(v.Message(), f)
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(f(v.String())))
		}
		return true
	})
}

// printable reports whether b is UTF-8 text without control characters.
func printable(b []byte) bool {
	return utf8.Valid(b) && !bytes.ContainsFunc(b, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' })
}

// truncate shortens a request body for the file (requests are the test's own
// and shown only to read the answer by).
func truncate(s string) string {
	const most = 600
	if len(s) <= most {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:most], len(s))
}

// normalizer replaces what differs between runs or builds of the same code.
// Two things do; every other value of the flow is fixed by seeds and the
// settable clock:
//   - the JWTs: a session token or ticket carries a random jti
//     (crypto/rand), so it is new each time. Each distinct token gets its
//     own numbered placeholder (<session-token-1>, <ticket-3>) wherever it
//     appears, so that which answer hands back which token, and which
//     request sends it, is still compared; describe records its header and
//     claims (jti aside), so their content is compared too;
//   - the space after protobuf-go's "proto:" in the messages that quote it.
//
// (JSON whitespace and protobuf map order are dealt with where bodies are
// written: jsonText, protoDump.)
type normalizer struct {
	names map[string]string // token -> placeholder
	count map[string]int    // kind -> tokens seen
	fresh []string          // tokens first seen in the current section
}

func newNormalizer() *normalizer {
	return &normalizer{names: map[string]string{}, count: map[string]int{}}
}

// jwt matches a compact JWS whose header and claims are JSON objects.
var jwt = regexp.MustCompile(`eyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+`)

// protoPrefix is protobuf-go's error prefix, which it writes with a space or
// a no-break space (U+00A0, percent-encoded in grpc-message) chosen per
// build (internal/detrand), so that no one compares its messages.
var protoPrefix = strings.NewReplacer("proto:\u00a0", "proto: ", "proto:%C2%A0", "proto: ")

// text replaces every token in s by its placeholder, and protobuf-go's
// unstable space after "proto:" by a space.
func (n *normalizer) text(s string) string {
	return protoPrefix.Replace(jwt.ReplaceAllStringFunc(s, n.token))
}

// token is the placeholder of tok.
func (n *normalizer) token(tok string) string {
	if p, ok := n.names[tok]; ok {
		return p
	}
	kind := "jwt"
	var h struct {
		Typ string `json:"typ"`
	}
	if raw, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0]); err == nil && json.Unmarshal(raw, &h) == nil {
		switch h.Typ {
		case "reclaim-session+jwt":
			kind = "session-token"
		case "reclaim-ticket+jwt":
			kind = "ticket"
		}
	}
	n.count[kind]++
	p := fmt.Sprintf("<%s-%d>", kind, n.count[kind])
	n.names[tok] = p
	n.fresh = append(n.fresh, tok)
	return p
}

var jti = regexp.MustCompile(`"jti":"[0-9a-f]*"`)

// describe is the placeholder of tok with its header and claims as signed,
// its jti replaced (the signature, over the jti, is left out).
func (n *normalizer) describe(tok string) string {
	parts := strings.Split(tok, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	return fmt.Sprintf("%s\n  header %s\n  claims %s\n", n.names[tok], header, jti.ReplaceAllString(string(claims), `"jti":"<random>"`))
}
