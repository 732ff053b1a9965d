package idempotency

import (
	"strings"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// MaxKey bounds a key's length: a UUID takes 36 characters, Stripe allows
// 255.
const MaxKey = 255

// ParseKey reads the Idempotency-Key header's values: "" with no header;
// otherwise one value, either a token (Stripe's form: printable ASCII
// without spaces, as a UUID) or a structured-field string (the IETF
// draft's form: "..." with \" and \\ escapes), of 1 to MaxKey characters.
// Anything else is an invalid fault naming the header.
func ParseKey(values []string) (string, error) {
	switch len(values) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", fault.Invalid(Header, "send one Idempotency-Key header, not %d", len(values))
	}
	v := strings.Trim(values[0], " \t")
	key := v
	if strings.HasPrefix(v, `"`) {
		var ok bool
		if key, ok = unquote(v); !ok {
			return "", fault.Invalid(Header, `Idempotency-Key: a quoted key must end with a quote and escape only \" and \\`)
		}
	}
	switch {
	case key == "":
		return "", fault.Invalid(Header, "Idempotency-Key is empty: send a unique key per request, such as a UUID")
	case len(key) > MaxKey:
		return "", fault.Invalid(Header, "Idempotency-Key is longer than %d characters", MaxKey)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e || (c == ' ' && key == v) {
			return "", fault.Invalid(Header, "Idempotency-Key must be printable ASCII without spaces (such as a UUID)")
		}
	}
	return key, nil
}

// unquote reads a structured-field string (RFC 8941 3.3.3): the value
// between the quotes, with \" and \\ unescaped; false for anything else.
func unquote(v string) (string, bool) {
	if len(v) < 2 || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		switch c {
		case '\\':
			if i+1 == len(inner) || (inner[i+1] != '"' && inner[i+1] != '\\') {
				return "", false
			}
			i++
			b.WriteByte(inner[i])
		case '"':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
