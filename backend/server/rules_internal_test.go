package server

import (
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

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
