package gateway

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// contractTypes are every message of the contract: requests the one decoder
// reads, answers the one encoder writes.
func contractTypes(t testing.TB) []protoreflect.MessageType {
	t.Helper()
	var out []protoreflect.MessageType
	files := []protoreflect.FileDescriptor{
		reclaimv1.File_reclaim_v1_session_proto, reclaimv1.File_reclaim_v1_wallet_proto, reclaimv1.File_reclaim_v1_project_proto,
	}
	for _, fd := range files {
		msgs := fd.Messages()
		for i := range msgs.Len() {
			mt, err := protoregistry.GlobalTypes.FindMessageByName(msgs.Get(i).FullName())
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, mt)
		}
	}
	return out
}

// referenceDecode is how a body was read before the one decoder: checked by
// checkJSON, then decoded by protojson.
func referenceDecode(data []byte, m proto.Message) error {
	if err := checkJSON(data, m.ProtoReflect().Descriptor()); err != nil {
		return err
	}
	return protojson.Unmarshal(data, m)
}

func TestOneDecoderReadsOrdinaryBodies(t *testing.T) {
	cases := []struct {
		name string
		msg  proto.Message
		body string
	}{
		{"session", &reclaimv1.CreateSessionRequest{}, `{"walletAddress":"DWgDJCwYW3AWtkoDnbFgqvgXLjdLjPoNdSPfMrZdS3Tn","ttlSeconds":600,"scopes":["wallet:read"]}`},
		{"ttl as a string, as the TS client sends it", &reclaimv1.CreateSessionRequest{}, `{"ttlSeconds":"600"}`},
		{"snake_case names", &reclaimv1.CreateSessionRequest{}, `{"wallet_address":"x","ttl_seconds":-1}`},
		{"white space and nulls", &reclaimv1.CreateSessionRequest{}, " \n{ \"walletAddress\" : null ,\t\"scopes\" : [ ] }\r\n"},
		{"escapes", &reclaimv1.CreateSessionRequest{}, `{"walletAddress":"a\"b\\c\/d\b\f\n\r\t\u00e9\u2028\ud83d\ude00 é😀"}`},
		{"build", &reclaimv1.BuildTransactionsRequest{}, `{"items":[{"type":"token","address":"A","action":"burn"},{}],"donationPercentage":0.25,"priorityFeeLevel":"high"}`},
		{"donation as an exponent", &reclaimv1.BuildTransactionsRequest{}, `{"donationPercentage":2.5E-1}`},
		{"donation -0", &reclaimv1.BuildTransactionsRequest{}, `{"donationPercentage":-0}`},
		{"submit", &reclaimv1.SubmitTransactionsRequest{}, `{"signed":[{"transactionBase64":"AQID","submissionTicket":"t"}]}`},
		{"leaderboard answer", &reclaimv1.GetLeaderboardResponse{}, `{"entries":[{"payer":"p","totalGrossRebate":18446744073709551615,"totalNetRebate":-9223372036854775808,"transactionTypeCounts":{"a":1,"b":2}}]}`},
		{"empty object", &reclaimv1.GetStatsRequest{}, `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.msg.ProtoReflect().New().Interface()
			if !decodeJSON([]byte(tc.body), got.ProtoReflect()) {
				t.Fatalf("the one decoder left %s to the reference path", tc.body)
			}
			want := tc.msg.ProtoReflect().New().Interface()
			if err := referenceDecode([]byte(tc.body), want); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, want) {
				t.Fatalf("one decoder %v, reference %v", got, want)
			}
		})
	}
}

func TestOneDecoderLeavesTheRest(t *testing.T) {
	for _, body := range []string{
		``, `[]`, `null`, `{"walletAddress":"x"} x`, `{"walletAddress":"x",}`, `{"walletAddress":"x","walletAddress":"y"}`,
		`{"walletAddress":"x","wallet_address":"y"}`, `{"nope":1}`, `{"walletAddress":"\ud800"}`, `{"walletAddress":"\udc00\ud800"}`,
		`{"walletAddress":"` + "\xff" + `"}`, `{"walletAddress":"` + "\x01" + `"}`, `{"ttlSeconds":1.0}`, `{"ttlSeconds":1e3}`,
		`{"ttlSeconds":9223372036854775808}`, `{"ttlSeconds":" 1"}`, `{"ttlSeconds":01}`, `{"scopes":[null]}`, `{"scopes":"a"}`,
		`{"walletAddress":1}`, `{"walletAddress":tru}`,
	} {
		m := &reclaimv1.CreateSessionRequest{}
		if decodeJSON([]byte(body), m.ProtoReflect()) {
			t.Errorf("the one decoder took %q", body)
		}
	}
	for _, body := range []string{`{"donationPercentage":"0.5"}`, `{"donationPercentage":"NaN"}`, `{"donationPercentage":1e400}`, `{"items":[null]}`} {
		m := &reclaimv1.BuildTransactionsRequest{}
		if decodeJSON([]byte(body), m.ProtoReflect()) {
			t.Errorf("the one decoder took %q", body)
		}
	}
}

// FuzzDecodeMatchesReference holds the one decoder to the reference path:
// whatever body it takes, the check takes too and protojson decodes to the
// same message; whatever it leaves goes the reference path, which words
// every refusal.
func FuzzDecodeMatchesReference(f *testing.F) {
	for _, seed := range []string{
		`{"walletAddress":"DWgDJCwYW3AWtkoDnbFgqvgXLjdLjPoNdSPfMrZdS3Tn","ttlSeconds":600,"scopes":["wallet:read","wallet:stream"]}`,
		`{"items":[{"type":"empty_account","address":"A","action":"close"}],"donationPercentage":0.1,"priorityFeeLevel":"high"}`,
		`{"signed":[{"transactionBase64":"AQID","submissionTicket":"t"}]}`,
		`{"entries":[{"payer":"p","totalGrossRebate":1,"transactionTypeCounts":{"token_burn":2}}]}`,
		`{"address":"a","chunkSize":"5","limit":1000,"cursor":"\u00e9\ud83d\ude00"}`,
		`{"ttlSeconds":"-0","walletAddress":null}`, `{"donationPercentage":1E-7}`, `{"counts":{"a":1,"a":2}}`,
		`{"selectAll":true,"donationPercentage":0.1}`, `{"types":{"token":{"count":2,"lamports":"4078560"}},"transactionCount":1}`,
	} {
		f.Add([]byte(seed))
	}
	types := contractTypes(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mt := range types {
			got := mt.New()
			if !decodeJSON(data, got) {
				continue
			}
			want := mt.New().Interface()
			if err := referenceDecode(data, want); err != nil {
				t.Fatalf("%s: the one decoder took %q, the reference refuses it: %v", mt.Descriptor().FullName(), data, err)
			}
			if !proto.Equal(got.Interface(), want) {
				t.Fatalf("%s: %q: one decoder %v, reference %v", mt.Descriptor().FullName(), data, got, want)
			}
		}
	})
}

// filler fills messages from fuzz input: every field kind, strings with
// what escaping tells apart, floats from raw bits (NaN, infinities, -0).
type filler struct {
	data []byte
	i    int
}

func (f *filler) next() byte {
	if f.i >= len(f.data) {
		return 0
	}
	f.i++
	return f.data[f.i-1]
}

func (f *filler) uint64() uint64 {
	var b [8]byte
	for i := range b {
		b[i] = f.next()
	}
	return binary.LittleEndian.Uint64(b[:])
}

var fillerRunes = []string{"a", "Z", "0", " ", `"`, `\`, "/", "\n", "\t", "\x00", "\x1f", "\x7f", "<", "&", "é", "\u2028", "\u2029", "\ufffd", "😀", "\xff"}

func (f *filler) string() string {
	var b []byte
	for range int(f.next() % 8) {
		b = append(b, fillerRunes[int(f.next())%len(fillerRunes)]...)
	}
	return string(b)
}

func (f *filler) fill(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if f.next()%3 == 0 {
			continue
		}
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range int(f.next() % 4) {
				l.Append(f.value(fd, l.NewElement, depth))
			}
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for range int(f.next() % 4) {
				mp.Set(protoreflect.ValueOfString(f.string()).MapKey(), f.value(fd.MapValue(), mp.NewValue, depth))
			}
		case fd.Message() != nil:
			if depth < 3 {
				f.fill(m.Mutable(fd).Message(), depth+1)
			}
		default:
			m.Set(fd, f.value(fd, nil, depth))
		}
	}
}

func (f *filler) value(fd protoreflect.FieldDescriptor, newMsg func() protoreflect.Value, depth int) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.MessageKind:
		v := newMsg()
		if depth < 3 {
			f.fill(v.Message(), depth+1)
		}
		return v
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(f.string())
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(f.next()%2 == 1)
	case protoreflect.Int32Kind:
		return protoreflect.ValueOfInt32(int32(f.uint64()))
	case protoreflect.Uint32Kind:
		return protoreflect.ValueOfUint32(uint32(f.uint64()))
	case protoreflect.Int64Kind:
		return protoreflect.ValueOfInt64(int64(f.uint64()))
	case protoreflect.Uint64Kind:
		return protoreflect.ValueOfUint64(f.uint64())
	case protoreflect.DoubleKind:
		if f.next()%2 == 0 {
			return protoreflect.ValueOfFloat64(float64(int8(f.next())) / 8)
		}
		return protoreflect.ValueOfFloat64(math.Float64frombits(f.uint64()))
	}
	panic("filler: no " + fd.Kind().String() + " in the contract")
}

func TestOneEncoderWritesEveryAnswer(t *testing.T) {
	plans := NewJSONPlans()
	for _, mt := range contractTypes(t) {
		if !plans.top(mt.Descriptor()).ok {
			t.Errorf("%s goes to the reference encoder", mt.Descriptor().FullName())
		}
	}
}

// FuzzEncodeMatchesReference holds the one encoder to the reference
// encoder: the same bytes (but protojson's random spaces) for every
// message, the same refusal for a string that is not valid UTF-8.
func FuzzEncodeMatchesReference(f *testing.F) {
	types := contractTypes(f)
	for i := range types { // every type, filled three ways
		for _, fill := range [][]byte{
			[]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a"),
			bytes.Repeat([]byte{0xff, 0x41, 0x13, 0x02}, 64),
			bytes.Repeat([]byte{0x7f, 0x10, 0x0e, 0x05, 0x01}, 80),
		} {
			f.Add(append([]byte{byte(i)}, fill...))
		}
	}
	codec := NewJSONCodec(nil, NewJSONPlans())
	f.Fuzz(func(t *testing.T, data []byte) {
		fl := &filler{data: data}
		mt := types[int(fl.next())%len(types)] // one type an input: short inputs, quick to minimize
		m := mt.New()
		fl.fill(m, 0)
		got, ok := codec.plans.appendJSON(nil, m)
		want, err := codec.referenceMarshal(nil, m.Interface())
		if !ok {
			if err == nil {
				t.Fatalf("%s: the one encoder left %v, which the reference writes: %s", mt.Descriptor().FullName(), m, want)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s: the one encoder wrote %s, the reference refuses: %v", mt.Descriptor().FullName(), got, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, compact.Bytes()) {
			t.Fatalf("%s:\none encoder %s\nreference   %s", mt.Descriptor().FullName(), got, compact.Bytes())
		}
	})
}

// A value beyond its field's type and one beyond the range its rules
// declare get the one message of the range.
func TestOneMessagePerRange(t *testing.T) {
	md := (&reclaimv1.StreamWalletAssetsRequest{}).ProtoReflect().Descriptor()
	for body, want := range map[string]string{
		`{"chunkSize":-1}`:         "chunkSize: must be from 1 to 500, got -1",
		`{"chunkSize":4294967296}`: "chunkSize: must be from 1 to 500, got 4294967296",
		`{"chunkSize":"-7"}`:       "chunkSize: must be from 1 to 500, got -7",
		`{"chunkSize":1.5}`:        `chunkSize: must be a whole number, got "1.5"`,
		`{"chunkSize":"1e99"}`:     "chunkSize: must be from 1 to 500, got 1e99",
	} {
		if err := checkJSON([]byte(body), md); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", body, err, want)
		}
	}
	if err := CheckRules(&reclaimv1.StreamWalletAssetsRequest{Address: "11111111111111111111111111111111", ChunkSize: proto.Uint32(501)}); err == nil ||
		err.Error() != "chunkSize: must be from 1 to 500, got 501" {
		t.Errorf("chunkSize 501: %v", err)
	}
}
