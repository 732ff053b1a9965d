package gateway

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/reclaim-sol/reclaim/backend/domain/address"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/service/wallet"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// requestRules checks every request against the rules its .proto declares
// (buf.validate: ranges, lengths, patterns, the values a string takes, item
// counts, the either/or rules), the rules the OpenAPI document states. One
// validator, built once with every request type, serves Connect, gRPC,
// REST and MCP alike: each handler calls CheckRules first, after the auth
// interceptor has checked the credentials. What the rules cannot say
// (base58 decoding to 32 or 64 bytes, keys on the curve, base64, date order,
// an action the item's type takes, duplicates) stays with the services
// (docs/decisions.md).
var requestRules = newRequestRules()

func newRequestRules() protovalidate.Validator {
	var mds []protoreflect.MessageDescriptor
	for _, sd := range []protoreflect.ServiceDescriptor{
		reclaimv1.File_reclaim_v1_session_proto.Services().ByName("SessionService"),
		reclaimv1.File_reclaim_v1_wallet_proto.Services().ByName("WalletService"),
		reclaimv1.File_reclaim_v1_project_proto.Services().ByName("ProjectService"),
	} {
		for i := 0; i < sd.Methods().Len(); i++ {
			mds = append(mds, sd.Methods().Get(i).Input())
		}
	}
	v, err := protovalidate.New(protovalidate.WithMessageDescriptors(mds...), protovalidate.WithFailFast())
	if err != nil {
		panic("server: the proto's buf.validate rules do not compile: " + err.Error()) // a build mistake, caught by every test
	}
	return v
}

// decodedHere skips at run time the rules of the fields the server decodes
// itself, refusing all their rules refuse and more in the same words: a
// build's item addresses (base58 of 32 bytes, decoded as the request is
// converted; addressMistake words both alike). Their base58 pattern, which
// the document states, would cost a regular expression per item, most of
// a 500-item build's checks (BenchmarkCheckRules).
var decodedHere = protovalidate.WithFilter(protovalidate.FilterFunc(func(_ protoreflect.Message, d protoreflect.Descriptor) bool {
	return d.FullName() != "reclaim.v1.ItemSelection.address"
}))

// withoutItems skips a build's items as well: for a request whose items
// the fast path (buildItems.pass) found within their rules.
var withoutItems = protovalidate.WithFilter(protovalidate.FilterFunc(func(_ protoreflect.Message, d protoreflect.Descriptor) bool {
	name := d.FullName()
	return name != "reclaim.v1.ItemSelection.address" && name != "reclaim.v1.BuildTransactionsRequest.items"
}))

// buildItems is a build's item rules read from the proto (the list's most
// items, the values type and action take), for a fast path: the
// validator's walk of 500 items costs most of a 500-item build's check
// (BenchmarkCheckRules), and a build whose items keep these rules, as
// nearly all do, needs none of it. Any other goes through the validator,
// for its words.
var buildItems = readBuildItems()

type itemRules struct {
	maxItems      int
	types, action map[string]bool
}

func readBuildItems() itemRules {
	rulesOf := func(fd protoreflect.FieldDescriptor) *validate.FieldRules {
		r, _ := proto.GetExtension(fd.Options(), validate.E_Field).(*validate.FieldRules)
		return r
	}
	set := func(values []string) map[string]bool {
		m := make(map[string]bool, len(values))
		for _, v := range values {
			m[v] = true
		}
		return m
	}
	build := (&reclaimv1.BuildTransactionsRequest{}).ProtoReflect().Descriptor()
	item := (&reclaimv1.ItemSelection{}).ProtoReflect().Descriptor().Fields()
	return itemRules{
		maxItems: int(rulesOf(build.Fields().ByName("items")).GetRepeated().GetMaxItems()), //nolint:gosec // 500
		types:    set(rulesOf(item.ByName("type")).GetString().GetIn()),
		action:   set(rulesOf(item.ByName("action")).GetString().GetIn()),
	}
}

// pass reports whether every item rule holds for items (not their
// addresses: decodedHere).
func (r itemRules) pass(items []*reclaimv1.ItemSelection) bool {
	if len(items) > r.maxItems {
		return false
	}
	for _, it := range items {
		if !r.types[it.GetType()] || !r.action[it.GetAction()] {
			return false
		}
	}
	return true
}

// CheckRules checks a request against its rules: nil, or an invalid fault
// naming the field by its JSON path (items[3].type) with the message the
// service gave before the rules were declared in the proto.
func CheckRules(req proto.Message) error {
	filter := decodedHere
	if b, ok := req.(*reclaimv1.BuildTransactionsRequest); ok && buildItems.pass(b.GetItems()) {
		filter = withoutItems
	}
	err := requestRules.Validate(req, filter)
	if err == nil {
		return nil
	}
	var ve *protovalidate.ValidationError
	if !errors.As(err, &ve) || len(ve.Violations) == 0 {
		return fmt.Errorf("checking the request's rules: %w", err) // a rule that cannot run: a 500, never the caller's
	}
	return wordViolation(req.ProtoReflect(), ve.Violations[0])
}

// violation is one broken rule, as the table below words it.
type violation struct {
	req   protoreflect.Message
	path  string // the JSON path: items[3].type, signed[0]
	index int    // the last subscript in the path (-1: none)
	v     *protovalidate.Violation
}

// ruleWords words the violations of one field (or one message rule, by its
// id): the key is the request's message name and the field's JSON path
// with subscripts as [] ("BuildTransactionsRequest.items[].type").
var ruleWords = map[string]func(x violation) error{
	"*.address": func(x violation) error { return addressMistake(x, "address") },
	"CreateSessionRequest.walletAddress": func(x violation) error {
		if x.v.Proto.GetRuleId() == "required" {
			return fault.InvalidField("walletAddress", "is required")
		}
		return addressMistake(x, "walletAddress")
	},
	"CreateSessionRequest.scopes[]": func(x violation) error {
		return fault.InvalidField("scopes", "unknown scope %q: valid scopes are %s", x.v.FieldValue.String(), strings.Join(auth.AllScopes, ", "))
	},
	"GetLeaderboardRequest.payer": func(x violation) error {
		return fault.Invalid("payer", "payer %q is not a Solana address (base58, 32 bytes)", x.v.FieldValue.String())
	},
	"GetLeaderboardRequest.transactionType": func(x violation) error {
		return fault.Invalid("transactionType", "transactionType %q is not one of %s", x.v.FieldValue.String(), strings.Join(inValues(x), ", "))
	},
	"GetSubmissionsRequest.waitUntil": func(x violation) error {
		return wallet.WaitUntilMistake(x.v.FieldValue.String())
	},
	"*.priorityFeeLevel": func(x violation) error {
		return fault.InvalidField("priorityFeeLevel", "unknown level %q: want one of %s", x.v.FieldValue.String(), strings.Join(inValues(x), ", "))
	},
	"*.transactionVersion": func(x violation) error {
		return fault.InvalidField("transactionVersion", "transaction version %s is not one Reclaim builds: give 0 (a v0 transaction, which every wallet signs) or 1 (a v1 transaction, only when the wallet's supportedTransactionVersions has 1)", valueString(x.v.FieldValue))
	},
	"build.items_and_select_all": func(violation) error {
		return fault.InvalidField("selectAll", "give either items or selectAll, not both: selectAll selects every safe item itself")
	},
	"build.items_or_select_all": func(violation) error {
		return fault.InvalidField("items", "at least one item is required")
	},
	"BuildTransactionsRequest.items": func(x violation) error {
		return fault.InvalidField("items", "at most %d items per request, got %d: split the selection", wallet.MaxBuildItems, x.v.FieldValue.List().Len())
	},
	"BuildTransactionsRequest.items[].type": func(x violation) error {
		return fault.InvalidField(x.path, "unknown item type %q: want one of %s", x.v.FieldValue.String(), strings.Join(inValues(x), ", "))
	},
	"BuildTransactionsRequest.items[].address": func(x violation) error { return addressMistake(x, x.path) },
	"BuildTransactionsRequest.items[].action": func(x violation) error {
		it := x.req.Interface().(*reclaimv1.BuildTransactionsRequest).GetItems()[x.index] //nolint:forcetypeassert // the key names the message
		return wallet.InvalidAction(strings.TrimSuffix(x.path, ".action"), assets.ItemType(it.GetType()), assets.Action(it.GetAction()))
	},
	"SubmitTransactionsRequest.signed": func(x violation) error {
		if n := x.v.FieldValue.List().Len(); n > 0 {
			return fault.InvalidField("signed", "at most %d signed transactions per request, got %d", wallet.MaxSubmitSigned, n)
		}
		return fault.InvalidField("signed", "at least one signed transaction is required")
	},
	"SubmitTransactionsRequest.signed[].submissionTicket": func(x violation) error {
		if x.v.FieldValue.String() == "" {
			return fault.InvalidField(x.path, "is required: pass back the ticket of the matching built transaction")
		}
		return fault.InvalidField(x.path, "is not a ticket this service issued")
	},
	"SubmitTransactionsRequest.signed[].transactionBase64": func(x violation) error {
		return fault.InvalidField(x.path, "is longer than a Solana transaction can be (4,096 bytes for v1, 1,232 for legacy and v0)")
	},
	"SubmitTransactionsRequest.signed[].signature": func(x violation) error {
		return fault.InvalidField(x.path, "is not a transaction signature (64 bytes in base58)")
	},
	"signed.transaction_and_signature": func(x violation) error {
		return fault.InvalidField(x.path, "give transactionBase64 (Reclaim sends it) or signature (the wallet sent it), not both")
	},
	"signed.transaction_or_signature": func(x violation) error {
		return fault.InvalidField(x.path+".transactionBase64", "is required")
	},
	"GetSubmissionsRequest.signature": func(x violation) error {
		if n := x.v.FieldValue.List().Len(); n > 0 {
			return fault.InvalidField("signature", "at most %d signatures per request, got %d", wallet.MaxStatusSignatures, n)
		}
		return fault.InvalidField("signature", "at least one signature is required: ?signature=SIG, once per submission")
	},
	"GetSubmissionsRequest.signature[]": func(x violation) error {
		n := len(x.req.Interface().(*reclaimv1.GetSubmissionsRequest).GetSignature()) //nolint:forcetypeassert // the key names the message
		return fault.InvalidField("signature", "signature %d of %d is not a transaction signature (64 bytes in base58), as a submit's result gives it", x.index+1, n)
	},
}

// rangeNotes follow a range's message for a field whose unit needs saying.
var rangeNotes = map[string]string{"donationPercentage": " (0.1 means 10%)"}

// wordViolation words a violation: by the table, as a range (one message
// for every value out of it, whichever end), or else with protovalidate's
// own message after the field's path.
func wordViolation(req protoreflect.Message, v *protovalidate.Violation) error {
	x := violation{req: req, index: -1, v: v}
	var key strings.Builder
	md := req.Descriptor()
	for _, el := range v.Proto.GetField().GetElements() {
		fd := md.Fields().ByNumber(protoreflect.FieldNumber(el.GetFieldNumber()))
		if fd == nil {
			break
		}
		if x.path != "" {
			x.path += "."
			key.WriteString(".")
		}
		x.path += fd.JSONName()
		key.WriteString(fd.JSONName())
		if sub, ok := el.GetSubscript().(*validate.FieldPathElement_Index); ok {
			x.path += "[" + strconv.FormatUint(sub.Index, 10) + "]"
			x.index = int(sub.Index) //nolint:gosec // a list index
			key.WriteString("[]")
		}
		md = fd.Message()
	}
	name, last := string(req.Descriptor().Name()), key.String()
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	for _, k := range []string{v.Proto.GetRuleId(), name + "." + key.String(), "*." + last} {
		if f, ok := ruleWords[k]; ok {
			return f(x)
		}
	}
	if fd := v.FieldDescriptor; fd != nil && v.FieldValue.IsValid() && !fd.IsList() {
		if lo, hi, ok := ruleRange(fd); ok {
			return rangeMistake(x.path, lo, hi, valueString(v.FieldValue))
		}
	}
	return fault.InvalidField(x.path, "%s", v.Proto.GetMessage())
}

// addressMistake words an address that breaks its pattern or length as
// decoding it does (every such string fails to decode).
func addressMistake(x violation, param string) error {
	s := x.v.FieldValue.String()
	if param == "address" {
		if _, err := wallet.ParseAddress(s); err != nil {
			return err
		}
	}
	if _, err := address.Parse(s); err != nil {
		if s == "" {
			return fault.InvalidField(param, "is required")
		}
		return fault.InvalidField(param, "%s", err.Error())
	}
	return fault.InvalidField(param, "%s", x.v.Proto.GetMessage())
}

// rangeMistake is the one message of a value out of a field's range,
// whichever end, whether the service or the JSON and query checks (a value
// beyond the field's type) find it.
func rangeMistake(param, lo, hi, got string) error {
	return fault.InvalidField(param, "must be from %s to %s%s, got %s", lo, hi, rangeNotes[param], got)
}

// inValues is the list of values an `in` rule of the violation takes.
func inValues(x violation) []string {
	l := x.v.RuleValue
	if !l.IsValid() {
		return nil
	}
	out := make([]string, l.List().Len())
	for i := range out {
		out[i] = l.List().Get(i).String()
	}
	return out
}

// ruleRange is the range a numeric field's rules declare (false: none).
func ruleRange(fd protoreflect.FieldDescriptor) (lo, hi string, ok bool) {
	rules, _ := proto.GetExtension(fd.Options(), validate.E_Field).(*validate.FieldRules)
	if rules == nil {
		return "", "", false
	}
	switch {
	case rules.GetUint32() != nil:
		r := rules.GetUint32()
		return strconv.FormatUint(uint64(r.GetGte()), 10), strconv.FormatUint(uint64(r.GetLte()), 10), r.HasLte()
	case rules.GetInt64() != nil:
		r := rules.GetInt64()
		return strconv.FormatInt(r.GetGte(), 10), strconv.FormatInt(r.GetLte(), 10), r.HasGte() && r.HasLte()
	case rules.GetDouble() != nil:
		r := rules.GetDouble()
		return strconv.FormatFloat(r.GetGte(), 'g', -1, 64), strconv.FormatFloat(r.GetLte(), 'g', -1, 64), r.HasGte() && r.HasLte()
	}
	return "", "", false
}

// ruleRangeInts is ruleRange for the JSON and query checks' integers.
func ruleRangeInts(fd protoreflect.FieldDescriptor) (lo, hi *big.Int, ok bool) {
	l, h, ok := ruleRange(fd)
	if !ok || fd.Kind() == protoreflect.DoubleKind {
		return nil, nil, false
	}
	lo, _ = new(big.Int).SetString(l, 10)
	hi, _ = new(big.Int).SetString(h, 10)
	return lo, hi, lo != nil && hi != nil
}

// valueString writes a scalar as the messages quote it.
func valueString(v protoreflect.Value) string {
	switch x := v.Interface().(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return v.String()
}
