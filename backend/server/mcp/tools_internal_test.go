package mcp

import (
	"testing"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// Every tool of the registry finds its handler (at start, never at a call).
func TestEveryToolFindsItsHandler(t *testing.T) {
	if _, err := (&mcpFace{wallet: reclaimv1connect.UnimplementedWalletServiceHandler{}, project: reclaimv1connect.UnimplementedProjectServiceHandler{}}).tools(); err != nil {
		t.Fatal(err)
	}
	// A tool whose service or method has no handler stops the start too.
	create := reclaimv1.File_reclaim_v1_session_proto.Services().Get(0).Methods().Get(0)
	if _, err := unaryCall(nil, create); err == nil {
		t.Error("a tool of a service without a handler was taken")
	}
	if _, err := unaryCall(reclaimv1connect.UnimplementedWalletServiceHandler{}, create); err == nil {
		t.Error("a tool whose handler lacks its method was taken")
	}
}
