package idempotency

import (
	"errors"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

func TestParseKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		values []string
		want   string
		why    string // part of the refusal
	}{
		{"none", nil, "", ""},
		{"uuid", []string{"8e03978e-40d5-43e8-bc93-6894a57f9324"}, "8e03978e-40d5-43e8-bc93-6894a57f9324", ""},
		{"spaces around", []string{"  order-42 \t"}, "order-42", ""},
		{"structured string", []string{`"8e03978e-40d5"`}, "8e03978e-40d5", ""},
		{"structured with escapes", []string{`"a\"b\\c d"`}, `a"b\c d`, ""},
		{"longest", []string{strings.Repeat("k", MaxKey)}, strings.Repeat("k", MaxKey), ""},
		{"two headers", []string{"a", "b"}, "", "one Idempotency-Key"},
		{"empty", []string{""}, "", "is empty"},
		{"empty quoted", []string{`""`}, "", "is empty"},
		{"too long", []string{strings.Repeat("k", MaxKey+1)}, "", "longer than 255"},
		{"inner space", []string{"order 42"}, "", "printable ASCII"},
		{"control", []string{"a\x01b"}, "", "printable ASCII"},
		{"non-ASCII", []string{"clé"}, "", "printable ASCII"},
		{"open quote", []string{`"abc`}, "", "quoted key"},
		{"bad escape", []string{`"a\nb"`}, "", "quoted key"},
		{"inner quote", []string{`"a"b"`}, "", "quoted key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseKey(c.values)
			if c.why == "" {
				if err != nil || got != c.want {
					t.Fatalf("ParseKey(%q) = %q, %v; want %q", c.values, got, err, c.want)
				}
				return
			}
			f, ok := fault.As(err, fault.KindInvalid)
			if !ok || f.Param() != Header || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("ParseKey(%q) = %q, %v; want an invalid %s saying %q", c.values, got, err, Header, c.why)
			}
		})
	}
}

// FuzzParseKey: any header value gives a key of 1 to MaxKey printable
// ASCII characters, or an invalid fault naming the header; never a panic.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"8e03978e-40d5-43e8-bc93-6894a57f9324", `"a\"b"`, `"`, `""`, `"\`, " ", "a b", "\x7f", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := ParseKey([]string{v})
		if err != nil {
			var fe *fault.Error
			if !errors.As(err, &fe) || fe.Kind() != fault.KindInvalid || fe.Param() != Header {
				t.Fatalf("ParseKey(%q): %v", v, err)
			}
			return
		}
		if got == "" || len(got) > MaxKey {
			t.Fatalf("ParseKey(%q) = %q", v, got)
		}
		for i := 0; i < len(got); i++ {
			if got[i] < 0x20 || got[i] > 0x7e {
				t.Fatalf("ParseKey(%q) = %q: byte %#x", v, got, got[i])
			}
		}
	})
}
