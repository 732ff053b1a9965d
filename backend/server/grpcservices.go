package server

import (
	"context"
	"errors"
	"net/http"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The gRPC ecosystem's two services, so that grpcurl, buf curl, Postman and
// Kubernetes' gRPC probes work without our protos: the standard health
// service (grpc.health.v1.Health, Check only: Watch answers unimplemented)
// reporting readiness, and server reflection (v1 and v1alpha) describing
// our three services and the health service. Neither asks for credentials:
// the contract is public, and a health check must work for a prober.

// mountOps registers the probes and the gRPC ecosystem's services on mux,
// and returns the procedures it serves.
func mountOps(mux *http.ServeMux, ready *readiness, services []protoreflect.ServiceDescriptor, opts ...connect.HandlerOption) []string {
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", ready.readyz)
	names := make([]string, 0, len(services)+1)
	for _, sd := range services {
		names = append(names, string(sd.FullName()))
	}
	checker := &healthChecker{ready: ready, services: map[string]bool{"": true}}
	for _, n := range names {
		checker.services[n] = true
	}
	names = append(names, grpchealth.HealthV1ServiceName)
	reflector := grpcreflect.NewStaticReflector(names...)
	mux.Handle(grpchealth.NewHandler(checker, opts...))
	mux.Handle(grpcreflect.NewHandlerV1(reflector, opts...))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector, opts...))
	return []string{
		"/" + grpchealth.HealthV1ServiceName + "/Check",
		"/" + grpchealth.HealthV1ServiceName + "/Watch",
		"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
		"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
	}
}

// healthChecker answers for the whole server ("") and for each of our
// services alike: serving when ready.
type healthChecker struct {
	ready    *readiness
	services map[string]bool
}

func (h *healthChecker) Check(ctx context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	if !h.services[req.Service] {
		return nil, connect.NewError(connect.CodeNotFound, errors.New("unknown service "+req.Service))
	}
	if ok, _ := h.ready.ready(ctx); !ok {
		return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
}
