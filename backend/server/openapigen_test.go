package server_test

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"pgregory.net/rapid"
)

// schemaGen draws JSON values from OpenAPI 3.1 schemas (the request side of
// gen/openapi/reclaim.openapi.json): value draws one the schema means to
// allow, mutate breaks one keyword of a value. Neither has to be right:
// the document itself (openapi3filter) says whether the request is allowed,
// the generator only makes both kinds likely. realistic, when it has an
// entry for a field's name, draws that field's value half the time instead
// (real addresses, signatures, dates), so that allowed requests reach past
// the rules the document cannot state.
type schemaGen struct {
	realistic map[string]*rapid.Generator[any]
}

// maxDrawn caps the length of drawn strings and arrays above their minimum,
// so that a check stays fast; the maximum itself is drawn too.
const maxDrawn = 6

func types(s *openapi3.Schema) string {
	if s.Type == nil || len(*s.Type) == 0 {
		return ""
	}
	return (*s.Type)[0]
}

// value draws a value schema s means to allow; name is the field's name.
func (g schemaGen) value(t *rapid.T, s *openapi3.Schema, name string) any {
	if r, ok := g.realistic[name]; ok && rapid.Bool().Draw(t, name+" realistic") {
		return r.Draw(t, name)
	}
	if s.Const != nil {
		return s.Const
	}
	if len(s.Enum) > 0 {
		return rapid.SampledFrom(s.Enum).Draw(t, name)
	}
	if alt := append(slices.Clone(s.AnyOf), s.OneOf...); len(alt) > 0 && types(s) != "object" {
		branch := rapid.IntRange(0, len(alt)-1).Draw(t, name+" branch")
		return g.value(t, overlay(s, alt[branch].Value), name)
	}
	switch types(s) {
	case "object":
		return g.object(t, s, name)
	case "array":
		lo, hi := bounds(s.MinItems, s.MaxItems)
		n := rapid.OneOf(rapid.IntRange(lo, min(hi, lo+maxDrawn)), rapid.Just(hi)).Draw(t, name+" items")
		out := make([]any, n)
		for i := range out {
			out[i] = g.value(t, s.Items.Value, name+"[]")
		}
		return out
	case "integer":
		lo, hi := numBounds(s, -1<<40, 1<<40)
		return rapid.OneOf(rapid.Just(int64(lo)), rapid.Just(int64(hi)), rapid.Int64Range(int64(lo), int64(hi))).Draw(t, name)
	case "number":
		lo, hi := numBounds(s, -1e12, 1e12)
		return rapid.OneOf(rapid.Just(lo), rapid.Just(hi), rapid.Float64Range(lo, hi)).Draw(t, name)
	case "boolean":
		return rapid.Bool().Draw(t, name)
	case "string":
		return g.str(t, s, name)
	}
	return nil
}

// object draws the required properties and some of the others; with anyOf
// or oneOf, one branch's required properties and bounds on top.
func (g schemaGen) object(t *rapid.T, s *openapi3.Schema, name string) map[string]any {
	props, required, forbidden := s.Properties, s.Required, []string(nil)
	if alt := append(slices.Clone(s.AnyOf), s.OneOf...); len(alt) > 0 {
		b := alt[rapid.IntRange(0, len(alt)-1).Draw(t, name+" branch")].Value
		props = openapi3.Schemas{}
		for k, p := range s.Properties {
			props[k] = p
			if bp, ok := b.Properties[k]; ok {
				props[k] = openapi3.NewSchemaRef("", overlay(p.Value, bp.Value))
			}
		}
		required = append(slices.Clone(required), b.Required...)
		if b.Not != nil {
			forbidden = b.Not.Value.Required // "not: {required: [signature]}": leave it out
		}
	}
	out := map[string]any{}
	for _, k := range sortedKeys(props) {
		if slices.Contains(forbidden, k) {
			continue
		}
		if slices.Contains(required, k) || rapid.Bool().Draw(t, name+"."+k+" present") {
			out[k] = g.value(t, props[k].Value, k)
		}
	}
	return out
}

// classOnly is a pattern of one character class repeated: its lengths are
// drawn with minLength and maxLength.
var classOnly = regexp.MustCompile(`^\^(\[[^\]]+\])\+\$$`)

func (g schemaGen) str(t *rapid.T, s *openapi3.Schema, name string) string {
	lo, hi := bounds(s.MinLength, s.MaxLength)
	hi = rapid.SampledFrom([]int{min(hi, lo+maxDrawn), hi}).Draw(t, name+" max length")
	switch m := classOnly.FindStringSubmatch(s.Pattern); {
	case m != nil:
		return rapid.StringMatching(fmt.Sprintf("^%s{%d,%d}$", m[1], max(lo, 1), hi)).Draw(t, name)
	case s.Pattern != "":
		return rapid.StringMatching(s.Pattern).Filter(func(v string) bool {
			return len(v) >= lo && len(v) <= hi
		}).Draw(t, name)
	}
	return rapid.StringN(lo, hi, -1).Draw(t, name)
}

// mutate breaks one keyword of v (a value of s): a bound, a length, the
// pattern, the enum, the type, a required property, an unknown property,
// or, deeper, one of its properties or items.
func (g schemaGen) mutate(t *rapid.T, s *openapi3.Schema, v any, name string) any {
	var breaks []func() any
	wrongType := func() any {
		return rapid.SampledFrom([]any{nil, "x", 1.5, int64(-1), true, []any{}, map[string]any{}}).Draw(t, name+" wrong type")
	}
	breaks = append(breaks, wrongType)
	if len(s.Enum) > 0 {
		breaks = append(breaks, func() any { return "not-" + fmt.Sprint(s.Enum[0]) })
	}
	switch x := v.(type) {
	case map[string]any:
		breaks = append(breaks, func() any { return withKey(x, "unknownField", "x") })
		for _, k := range sortedKeys(x) {
			if p := s.Properties[k]; p != nil {
				breaks = append(breaks,
					func() any { return without(x, k) },
					func() any { return withKey(x, k, g.mutate(t, p.Value, x[k], k)) })
			}
		}
		for _, b := range append(slices.Clone(s.AnyOf), s.OneOf...) { // another branch's bounds on this value
			for _, k := range sortedKeys(b.Value.Properties) {
				if p := s.Properties[k]; p != nil {
					breaks = append(breaks, func() any { return withKey(x, k, g.value(t, overlay(p.Value, b.Value.Properties[k].Value), k)) })
				}
			}
		}
	case []any:
		lo, hi := bounds(s.MinItems, s.MaxItems)
		if lo > 0 {
			breaks = append(breaks, func() any { return x[:lo-1] })
		}
		if s.MaxItems != nil && len(x) > 0 {
			breaks = append(breaks, func() any {
				out := slices.Clone(x)
				for len(out) <= hi {
					out = append(out, x[len(out)%len(x)])
				}
				return out
			})
		}
		if len(x) > 0 {
			breaks = append(breaks, func() any {
				i := rapid.IntRange(0, len(x)-1).Draw(t, name+" item")
				out := slices.Clone(x)
				out[i] = g.mutate(t, s.Items.Value, x[i], name+"[]")
				return out
			})
		}
	case string:
		lo, _ := bounds(s.MinLength, s.MaxLength)
		if lo > 0 {
			breaks = append(breaks, func() any { return x[:min(len(x), lo-1)] })
		}
		if s.MaxLength != nil {
			breaks = append(breaks, func() any { return x + strings.Repeat("1", max(int(*s.MaxLength)+1-len(x), 1)) })
		}
		if s.Pattern != "" {
			breaks = append(breaks, func() any { return "0O" + x }, func() any { return x + " " })
		}
	case int64, float64:
		f, _ := strconv.ParseFloat(fmt.Sprint(x), 64)
		if s.Min != nil {
			breaks = append(breaks, func() any { return asType(s, *s.Min-rapid.SampledFrom([]float64{1, 0.5, 1e9}).Draw(t, name+" below")) })
		}
		if s.Max != nil {
			breaks = append(breaks, func() any { return asType(s, *s.Max+rapid.SampledFrom([]float64{1, 0.5, 1e9}).Draw(t, name+" above")) })
		}
		if types(s) == "integer" {
			breaks = append(breaks, func() any { return f + 0.5 })
		}
	}
	return breaks[rapid.IntRange(0, len(breaks)-1).Draw(t, name+" break")]()
}

// overlay returns base with the keywords of branch (an anyOf branch's
// bounds on a property) added: both bounds hold.
func overlay(base, branch *openapi3.Schema) *openapi3.Schema {
	s := *base
	s.AnyOf, s.OneOf = nil, nil
	if branch.Const != nil {
		s.Const = branch.Const
	}
	s.MinItems, s.MaxItems = max(s.MinItems, branch.MinItems), lower(s.MaxItems, branch.MaxItems)
	s.MinLength, s.MaxLength = max(s.MinLength, branch.MinLength), lower(s.MaxLength, branch.MaxLength)
	if branch.Pattern != "" {
		s.Pattern = branch.Pattern
	}
	return &s
}

// lower is the lower of two optional bounds.
func lower(a, b *uint64) *uint64 {
	if a == nil || b != nil && *b < *a {
		return b
	}
	return a
}

// bounds are a length's: from lo to hi (hi capped when unbounded).
func bounds(lo uint64, hi *uint64) (int, int) {
	h := int(lo) + 2*maxDrawn
	if hi != nil {
		h = int(*hi)
	}
	return int(lo), h
}

func numBounds(s *openapi3.Schema, lo, hi float64) (float64, float64) {
	if s.Min != nil {
		lo = *s.Min
	}
	if s.Max != nil {
		hi = *s.Max
	}
	return lo, hi
}

// asType is f as the schema's type: an integer stays an integer when it can.
func asType(s *openapi3.Schema, f float64) any {
	if types(s) == "integer" && f == math.Trunc(f) {
		return int64(f)
	}
	return f
}

func withKey(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for key, val := range m {
		out[key] = val
	}
	out[k] = v
	return out
}

func without(m map[string]any, k string) map[string]any {
	out := withKey(m, k, nil)
	delete(out, k)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
