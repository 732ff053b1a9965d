package server_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionalphapb "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/reclaim-sol/reclaim/backend/server"
)

// grpcConn dials the test server with grpc-go, as grpcurl and Kubernetes'
// gRPC probes do.
func grpcConn(t *testing.T, e *env) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///"+strings.TrimPrefix(e.srv.URL, "http://"),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// The standard health service answers for the server and each of our
// services: serving while ready, not serving while draining.
func TestGRPCHealth(t *testing.T) {
	life := server.NewLifecycle()
	e := newEnv(t, withDeps(func(d *server.Deps) { d.Lifecycle = life }))
	health := healthpb.NewHealthClient(grpcConn(t, e))
	ctx := context.Background()
	for _, svc := range []string{"", "reclaim.v1.WalletService", "reclaim.v1.SessionService", "reclaim.v1.ProjectService"} {
		res, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("Check(%q): %v %v", svc, res, err)
		}
	}
	if _, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: "acme.v1.Nothing"}); status.Code(err) != codes.NotFound {
		t.Fatalf("unknown service: %v", err)
	}
	life.Drain()
	res, err := health.Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || res.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("Check while draining: %v %v", res, err)
	}
}

// Server reflection lists our services and the health service, and
// describes them (v1, and v1alpha for older tools), so a client needs no
// protos.
func TestGRPCReflection(t *testing.T) {
	e := newEnv(t)
	conn := grpcConn(t, e)
	ctx := context.Background()

	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(req *reflectionpb.ServerReflectionRequest) *reflectionpb.ServerReflectionResponse {
		t.Helper()
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
		res, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var services []string
	for _, s := range ask(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
	}).GetListServicesResponse().GetService() {
		services = append(services, s.GetName())
	}
	slices.Sort(services)
	want := []string{"grpc.health.v1.Health", "reclaim.v1.ProjectService", "reclaim.v1.SessionService", "reclaim.v1.WalletService"}
	if !slices.Equal(services, want) {
		t.Fatalf("services %v, want %v", services, want)
	}

	files := ask(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "reclaim.v1.WalletService"},
	}).GetFileDescriptorResponse().GetFileDescriptorProto()
	var methods []string
	for _, raw := range files {
		var fd descriptorpb.FileDescriptorProto
		if err := proto.Unmarshal(raw, &fd); err != nil {
			t.Fatal(err)
		}
		for _, s := range fd.GetService() {
			if s.GetName() == "WalletService" {
				for _, m := range s.GetMethod() {
					methods = append(methods, m.GetName())
				}
			}
		}
	}
	if !slices.Contains(methods, "SubmitTransactions") || !slices.Contains(methods, "StreamWalletAssets") {
		t.Fatalf("WalletService methods %v", methods)
	}

	alpha, err := reflectionalphapb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	//nolint:staticcheck // v1alpha is deprecated, and still what older tools ask
	if err := alpha.Send(&reflectionalphapb.ServerReflectionRequest{
		MessageRequest: &reflectionalphapb.ServerReflectionRequest_ListServices{},
	}); err != nil {
		t.Fatal(err)
	}
	//nolint:staticcheck // as above
	if res, err := alpha.Recv(); err != nil || len(res.GetListServicesResponse().GetService()) != len(want) {
		t.Fatalf("v1alpha: %v %v", res, err)
	}
}
