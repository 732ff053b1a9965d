package gateway

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	_ "google.golang.org/protobuf/types/known/emptypb" // the test service's messages

	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// Every RPC of every service declares its operation, and the registry has
// each one: the auth interceptor, the idempotency layer, the OpenAPI
// document and MCP read nothing else.
func TestEveryRPCDeclaresItsOperation(t *testing.T) {
	n := 0
	for _, sd := range APIServices {
		for i := 0; i < sd.Methods().Len(); i++ {
			m := sd.Methods().Get(i)
			n++
			if !proto.HasExtension(m.Options(), reclaimv1.E_Operation) {
				t.Errorf("%s.%s has no (reclaim.v1.operation) option", sd.FullName(), m.Name())
			}
			procedure := "/" + string(sd.FullName()) + "/" + string(m.Name())
			if _, ok := Policies.Of(procedure); !ok {
				t.Errorf("%s is not in the registry", procedure)
			}
		}
	}
	if n != 9 || len(Policies.byProcedure) != n {
		t.Errorf("%d RPCs, %d in the registry; want 9 of each", n, len(Policies.byProcedure))
	}
	if len(Policies.Tools) != 7 {
		t.Errorf("%d MCP tools, want 7", len(Policies.Tools))
	}
}

// The registry holds the contract's credentials, read from the proto.
func TestPoliciesHoldTheContract(t *testing.T) {
	both := auth.Requirement{APIKey: true, Session: true}
	wallet := func(scope, or auth.Scope) auth.Requirement {
		return auth.Requirement{APIKey: true, Session: true, Scope: scope, OrScope: or, BindsWallet: true}
	}
	want := map[string]auth.Requirement{
		reclaimv1connect.SessionServiceCreateSessionProcedure:     {APIKey: true},
		reclaimv1connect.WalletServiceListAssetsProcedure:         wallet(auth.ScopeWalletRead, ""),
		reclaimv1connect.WalletServiceBuildTransactionsProcedure:  wallet(auth.ScopeTransactionsBuild, ""),
		reclaimv1connect.WalletServiceSubmitTransactionsProcedure: wallet(auth.ScopeTransactionsSubmit, ""),
		reclaimv1connect.WalletServiceStreamWalletAssetsProcedure: {Session: true, Scope: auth.ScopeWalletStream, BindsWallet: true},
		reclaimv1connect.WalletServiceGetSummaryProcedure:         wallet(auth.ScopeTransactionsBuild, ""),
		reclaimv1connect.WalletServiceGetSubmissionsProcedure:     wallet(auth.ScopeWalletRead, auth.ScopeTransactionsSubmit),
		reclaimv1connect.ProjectServiceGetLeaderboardProcedure:    both,
		reclaimv1connect.ProjectServiceGetStatsProcedure:          both,
	}
	for procedure, w := range want {
		if got, ok := Requirement(procedure); !ok || got != w {
			t.Errorf("%s: %+v, want %+v", procedure, got, w)
		}
	}
	for procedure := range Policies.byProcedure {
		idempotent := procedure == reclaimv1connect.WalletServiceBuildTransactionsProcedure ||
			procedure == reclaimv1connect.WalletServiceSubmitTransactionsProcedure
		if Idempotent(procedure) != idempotent {
			t.Errorf("%s: idempotent %v, want %v", procedure, !idempotent, idempotent)
		}
	}
}

// A submit's key is leased for relay.SendGrace, the number its option
// states: after its instance died, a retry runs again while the
// transaction's blockhash lives.
func TestSubmitLeaseIsSendGrace(t *testing.T) {
	p, _ := Policies.Of(reclaimv1connect.WalletServiceSubmitTransactionsProcedure)
	if p.lease != relay.SendGrace {
		t.Errorf("the submit's lease is %v, relay.SendGrace %v: change lease_seconds in wallet.proto", p.lease, relay.SendGrace)
	}
	if b, _ := Policies.Of(reclaimv1connect.WalletServiceBuildTransactionsProcedure); b.lease != 0 {
		t.Errorf("the build's lease is %v, want the service's default", b.lease)
	}
}

// A stored answer replays as its operation's response message.
func TestReplayerDecodesTheResponse(t *testing.T) {
	p, _ := Policies.Of(reclaimv1connect.WalletServiceSubmitTransactionsProcedure)
	want := &reclaimv1.SubmitTransactionsResponse{Results: []*reclaimv1.SubmissionResult{{Status: "submitted"}}}
	body, _ := proto.Marshal(want)
	resp, err := p.Replay(body)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := resp.Any().(*reclaimv1.SubmitTransactionsResponse)
	if !ok || !proto.Equal(got, want) {
		t.Fatalf("replayed %T %v, want %v", resp.Any(), resp.Any(), want)
	}
	resp.Header().Set("X", "y") // a replay's headers are writable
}

// An RPC without its option stops the server as it starts, naming the RPC.
func TestAnRPCWithoutItsOptionStopsTheStart(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("t/v1/t.proto"), Package: proto.String("t.v1"), Syntax: proto.String("proto3"),
		Dependency: []string{"google/protobuf/empty.proto"},
		Service: []*descriptorpb.ServiceDescriptorProto{{Name: proto.String("S"), Method: []*descriptorpb.MethodDescriptorProto{{
			Name: proto.String("M"), InputType: proto.String(".google.protobuf.Empty"), OutputType: proto.String(".google.protobuf.Empty"),
		}}}},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readPolicies([]protoreflect.ServiceDescriptor{fd.Services().Get(0)})
	if err == nil || !strings.Contains(err.Error(), "/t.v1.S/M has no (reclaim.v1.operation) option") {
		t.Fatalf("readPolicies: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("mustPolicies did not stop the start")
		}
	}()
	mustPolicies([]protoreflect.ServiceDescriptor{fd.Services().Get(0)})
}

// A description's {in:field} list is the field's string.in rule, written
// out; one that names no such field stops the start.
func TestDescriptionListsFromTheRules(t *testing.T) {
	leaderboard := (&reclaimv1.GetLeaderboardRequest{}).ProtoReflect().Descriptor()
	got, err := expandIn("types ({in:transaction_type}).", leaderboard)
	want := "types (token_account_closure, token_burn, nft_burn, excess_rent_withdrawal, program_buffer_closure, " +
		"nonce_account_closure, stake_account_withdrawal, lookup_table_reclaim)."
	if err != nil || got != want {
		t.Errorf("expandIn: %q, %v; want %q", got, err, want)
	}
	session := (&reclaimv1.CreateSessionRequest{}).ProtoReflect().Descriptor()
	if got, err := expandIn("{in:scopes}", session); err != nil || got != "wallet:read, wallet:stream, transactions:build, transactions:submit" {
		t.Errorf("a repeated field's items: %q, %v", got, err)
	}
	for _, bad := range []string{"{in:payer}", "{in:nothing}", "{in:transaction_type"} {
		if _, err := expandIn(bad, leaderboard); err == nil {
			t.Errorf("expandIn(%q) took it", bad)
		}
	}
}
