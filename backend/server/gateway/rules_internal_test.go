package gateway

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/service/wallet"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// Every key of ruleWords names a field of a request (by JSON path) or the
// id of a CEL rule the protos declare: a renamed field or rule cannot leave
// its words behind, silently falling back to protovalidate's.
func TestRuleWordsNameRealRules(t *testing.T) {
	ids := map[string]bool{}
	requests := map[string]protoreflect.MessageDescriptor{}
	for _, fd := range []protoreflect.FileDescriptor{reclaimv1.File_reclaim_v1_wallet_proto, reclaimv1.File_reclaim_v1_session_proto, reclaimv1.File_reclaim_v1_project_proto} {
		for i := 0; i < fd.Messages().Len(); i++ {
			md := fd.Messages().Get(i)
			requests[string(md.Name())] = md
			rules, _ := proto.GetExtension(md.Options(), validate.E_Message).(*validate.MessageRules)
			for _, r := range rules.GetCel() {
				ids[r.GetId()] = true
			}
		}
	}
	for key := range ruleWords {
		if ids[key] || strings.HasPrefix(key, "*.") {
			continue
		}
		name, path, _ := strings.Cut(key, ".")
		md := requests[name]
		for _, el := range strings.Split(path, ".") {
			if md == nil {
				break
			}
			fd := md.Fields().ByJSONName(strings.TrimSuffix(el, "[]"))
			if fd == nil {
				md = nil
				break
			}
			md = fd.Message()
			if md == nil {
				md = fd.ContainingMessage() // a scalar: the end of the path
			}
		}
		if md == nil {
			t.Errorf("ruleWords[%q] names no field nor rule", key)
		}
	}
}

// slowRules is CheckRules without the items' fast path: the validator
// walks every item.
func slowRules(req proto.Message) error {
	err := requestRules.Validate(req, decodedHere)
	var ve *protovalidate.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	return wordViolation(req.ProtoReflect(), ve.Violations[0])
}

// The build items' fast path answers as the validator does, for every
// build: the same refusal, or none.
func FuzzItemFastPath(f *testing.F) {
	f.Add("empty_account", "close", uint16(500), 0.1, false)
	f.Add("empty_account", "close", uint16(501), 0.1, false)
	f.Add("token", "burn", uint16(3), 1.5, false)
	f.Add("bogus", "close", uint16(2), 0.1, false)
	f.Add("nft", "explode", uint16(2), 0.1, false)
	f.Add("nft", "close", uint16(1), 0.1, true)
	f.Add("cnft", "burn", uint16(0), -1.0, false)
	f.Fuzz(func(t *testing.T, typ, action string, n uint16, donation float64, selectAll bool) {
		n %= 600
		items := make([]*reclaimv1.ItemSelection, n)
		for i := range items {
			items[i] = &reclaimv1.ItemSelection{Type: "empty_account", Address: "11111111111111111111111111111111", Action: "close"}
		}
		if n > 0 {
			items[n/2] = &reclaimv1.ItemSelection{Type: typ, Address: "11111111111111111111111111111111", Action: action}
		}
		req := &reclaimv1.BuildTransactionsRequest{Address: "11111111111111111111111111111111", Items: items,
			DonationPercentage: &donation, SelectAll: selectAll}
		fast, slow := CheckRules(req), slowRules(req)
		if fmt.Sprint(fast) != fmt.Sprint(slow) {
			t.Fatalf("fast path %v, validator %v", fast, slow)
		}
	})
}

// The fast path read the rules the proto declares.
func TestItemFastPathReadsTheProto(t *testing.T) {
	if buildItems.maxItems != wallet.MaxBuildItems || len(buildItems.types) != len(assets.ItemTypes()) || !buildItems.action["withdraw_excess"] {
		t.Fatalf("read %+v", buildItems)
	}
}
