package server

import (
	"testing"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// Every tool of the registry finds its handler (at start, never at a call).
func TestEveryToolFindsItsHandler(t *testing.T) {
	if _, err := (&mcpFace{wallet: &walletServer{}, project: NewProjectServer(nil, 0)}).tools(); err != nil {
		t.Fatal(err)
	}
	// A tool whose service or method has no handler stops the start too.
	create := reclaimv1.File_reclaim_v1_session_proto.Services().Get(0).Methods().Get(0)
	if _, err := unaryCall(nil, create); err == nil {
		t.Error("a tool of a service without a handler was taken")
	}
	if _, err := unaryCall(&walletServer{}, create); err == nil {
		t.Error("a tool whose handler lacks its method was taken")
	}
}
