package gateway

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/reclaim-sol/reclaim/backend/service/auth"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// The operations' policy is declared once, in the proto: each RPC's
// reclaim.v1.operation option (proto/reclaim/v1/options.proto) says which
// credentials it takes, whether it honours Idempotency-Key and the MCP tool
// that serves it. policies reads them once, at start, and the auth
// interceptor, the idempotency layer, the OpenAPI document's credentials and
// the MCP server all read policies: adding an operation means editing its
// .proto and writing its handler.

// APIServices are the services the API serves, in the contract's order.
var APIServices = []protoreflect.ServiceDescriptor{
	reclaimv1.File_reclaim_v1_session_proto.Services().ByName("SessionService"),
	reclaimv1.File_reclaim_v1_wallet_proto.Services().ByName("WalletService"),
	reclaimv1.File_reclaim_v1_project_proto.Services().ByName("ProjectService"),
}

// Policies is every operation's policy. An RPC without its option (or with
// one that does not hold) stops the process as it starts, never at a
// request.
var Policies = mustPolicies(APIServices)

// policy is one operation's reclaim.v1.operation, read.
type policy struct {
	Procedure string // /reclaim.v1.WalletService/BuildTransactions
	// OperationID is the OpenAPI document's operationId (Service_Method).
	OperationID string
	Method      protoreflect.MethodDescriptor
	Require     auth.Requirement
	// Replay decodes a stored answer into the operation's response (nil:
	// the operation ignores Idempotency-Key).
	Replay func(body []byte) (connect.AnyResponse, error)
	// lease is its idempotency claims' lease (0: the service's default).
	lease time.Duration
	// Tool is its MCP tool (nil: none), its description's {in:field}
	// lists written out.
	Tool *reclaimv1.Tool
}

// policyBook is the operations' policies by procedure, and the MCP tools in
// their flow's order.
type policyBook struct {
	byProcedure map[string]*policy
	Tools       []*policy
}

// Of returns the policy of procedure.
func (b *policyBook) Of(procedure string) (*policy, bool) {
	p, ok := b.byProcedure[procedure]
	return p, ok
}

func mustPolicies(services []protoreflect.ServiceDescriptor) *policyBook {
	b, err := readPolicies(services)
	if err != nil {
		panic("server: " + err.Error()) // a build mistake, caught by every test and at start
	}
	return b
}

// readPolicies reads the reclaim.v1.operation option of every RPC of
// services.
func readPolicies(services []protoreflect.ServiceDescriptor) (*policyBook, error) {
	b := &policyBook{byProcedure: map[string]*policy{}}
	var errs []error
	for _, sd := range services {
		methods := sd.Methods()
		for i := 0; i < methods.Len(); i++ {
			p, err := readPolicy(sd, methods.Get(i))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			b.byProcedure[p.Procedure] = p
			if p.Tool != nil {
				b.Tools = append(b.Tools, p)
			}
		}
	}
	slices.SortStableFunc(b.Tools, func(x, y *policy) int { return int(x.Tool.GetPosition()) - int(y.Tool.GetPosition()) })
	for i := 1; i < len(b.Tools); i++ {
		if b.Tools[i].Tool.GetName() == b.Tools[i-1].Tool.GetName() || b.Tools[i].Tool.GetPosition() == b.Tools[i-1].Tool.GetPosition() {
			errs = append(errs, fmt.Errorf("%s and %s: two MCP tools with one name or position", b.Tools[i-1].Procedure, b.Tools[i].Procedure))
		}
	}
	return b, errors.Join(errs...)
}

func readPolicy(sd protoreflect.ServiceDescriptor, m protoreflect.MethodDescriptor) (*policy, error) {
	procedure := "/" + string(sd.FullName()) + "/" + string(m.Name())
	opt, _ := proto.GetExtension(m.Options(), reclaimv1.E_Operation).(*reclaimv1.Operation)
	if opt == nil || !proto.HasExtension(m.Options(), reclaimv1.E_Operation) {
		return nil, fmt.Errorf("%s has no (reclaim.v1.operation) option: declare its credentials in its .proto", procedure)
	}
	p := &policy{
		Procedure: procedure, OperationID: string(sd.Name()) + "_" + string(m.Name()), Method: m,
		Require: auth.Requirement{APIKey: opt.GetApiKey(), Session: opt.GetSession(), BindsWallet: opt.GetBindsWallet()},
		lease:   time.Duration(opt.GetLeaseSeconds()) * time.Second,
	}
	if !p.Require.APIKey && !p.Require.Session {
		return nil, fmt.Errorf("%s: its operation option accepts no credential (api_key or session)", procedure)
	}
	scopes := opt.GetScopes()
	if len(scopes) > 2 {
		return nil, fmt.Errorf("%s: at most two scopes, one of which a session needs", procedure)
	}
	for _, s := range scopes {
		if !slices.Contains(auth.AllScopes, s) {
			return nil, fmt.Errorf("%s: unknown scope %q", procedure, s)
		}
	}
	if len(scopes) > 0 {
		p.Require.Scope = scopes[0]
	}
	if len(scopes) > 1 {
		p.Require.OrScope = scopes[1]
	}
	if opt.GetIdempotent() {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(m.Output().FullName())
		if err != nil || m.IsStreamingClient() || m.IsStreamingServer() {
			return nil, fmt.Errorf("%s: only a unary RPC whose response type is linked in can honour Idempotency-Key", procedure)
		}
		p.Replay = replayerOf(mt)
	} else if p.lease != 0 {
		return nil, fmt.Errorf("%s: a lease without idempotent", procedure)
	}
	if t := opt.GetTool(); t != nil {
		if t.GetName() == "" || t.GetTitle() == "" || t.GetDescription() == "" || t.GetPosition() == 0 {
			return nil, fmt.Errorf("%s: its MCP tool needs a name, a title, a description and a position", procedure)
		}
		desc, err := expandIn(t.GetDescription(), m.Input())
		if err != nil {
			return nil, fmt.Errorf("%s: tool %s: %w", procedure, t.GetName(), err)
		}
		t = proto.CloneOf(t)
		t.Description = desc
		p.Tool = t
	}
	return p, nil
}

// expandIn writes out the {in:field_name} lists of a tool's description:
// the string.in values of the request field's rule (or of its items'),
// comma-separated.
func expandIn(desc string, input protoreflect.MessageDescriptor) (string, error) {
	var b strings.Builder
	for {
		before, rest, ok := strings.Cut(desc, "{in:")
		b.WriteString(before)
		if !ok {
			return b.String(), nil
		}
		name, after, ok := strings.Cut(rest, "}")
		if !ok {
			return "", errors.New("a {in: without its closing brace")
		}
		values := fieldInValues(input.Fields().ByName(protoreflect.Name(name)))
		if len(values) == 0 {
			return "", fmt.Errorf("{in:%s}: %s has no such field with a string.in rule", name, input.FullName())
		}
		b.WriteString(strings.Join(values, ", "))
		desc = after
	}
}

// fieldInValues are the values a string field's (or its items') buf.validate
// string.in rule allows; nil for none.
func fieldInValues(fd protoreflect.FieldDescriptor) []string {
	if fd == nil {
		return nil
	}
	rules, _ := proto.GetExtension(fd.Options(), validate.E_Field).(*validate.FieldRules)
	if items := rules.GetRepeated().GetItems(); items != nil {
		return items.GetString().GetIn()
	}
	return rules.GetString().GetIn()
}

// replayed is a stored answer replayed as the response of its operation:
// connect sends what Any returns, whatever the response's type argument.
type replayed struct {
	*connect.Response[struct{}]
	msg proto.Message
}

func (r replayed) Any() any { return r.msg }

// replayerOf decodes a stored answer into a message of type mt.
func replayerOf(mt protoreflect.MessageType) func([]byte) (connect.AnyResponse, error) {
	return func(body []byte) (connect.AnyResponse, error) {
		msg := mt.New().Interface()
		if err := proto.Unmarshal(body, msg); err != nil {
			return nil, err
		}
		return replayed{Response: connect.NewResponse(&struct{}{}), msg: msg}, nil
	}
}
