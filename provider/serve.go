package provider

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	comProvider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
)

// CPUProfileEnv names a file to write a pprof CPU profile of the plugin's whole run
// to (written when the plugin stops: the engine's interrupt, or ctx's end). Unset,
// nothing is profiled.
const CPUProfileEnv = "PULUMI_ENDPOINTS_CPU_PROFILE"

// Serve runs the provider as a plugin: it serves the gRPC protocol on the port it
// prints, until the engine stops it or ctx ends.
func Serve(ctx context.Context) error {
	if path := os.Getenv(CPUProfileEnv); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			return err
		}
		defer func() {
			if err := stop(); err != nil {
				secret.Logger(ctx).Warningf("%s: the CPU profile may be incomplete: %v", CPUProfileEnv, err)
			}
		}()
	}
	serve := newServer(ctx, os.Getenv).rpcServer
	// The packages' initialisation (Pulumi's schema and workspace packages compile JSON
	// schemas) leaves megabytes of garbage. A plugin runs for the whole command, beside
	// one of each other provider, so that memory goes back to the system, while the
	// server starts rather than before it.
	go debug.FreeOSMemory()
	return comProvider.MainContext(ctx, Name, serve)
}

// rpcServer is the gRPC server the plugin serves, talking to the engine at host (nil:
// none; the provider then logs to slog's default logger): pulumi-go-provider's server
// of s, with what protocolServer adds, every call guarded against panics (see guarded).
func (s *server) rpcServer(host *comProvider.HostClient) (rpc.ResourceProviderServer, error) {
	inner, err := p.RawServer(Name, Version, s.provider())(host)
	if err != nil {
		return nil, err
	}
	return guard(s.protocolServer(inner), host), nil
}

// startCPUProfile starts profiling into the file at path; stop ends the profile and
// closes the file, returning the error of closing it.
func startCPUProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path) //nolint:gosec // a path the user chose to write the profile to
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CPUProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("%s: starting the CPU profile: %w", CPUProfileEnv, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// protocolServer carries the parts of the engine's protocol that pulumi-go-provider
// does not: it answers List (kube.Kubernetes.List), passes a Check request's autonaming
// options on to Check through its context, and marks the objects the provider creates, reads (refresh,
// import) or updates with refresh_before_update when the refreshBeforeUpdate setting is
// on, so that a plain `pulumi up` or `pulumi preview` reads them back first and puts
// back what another client changed. A create or update that fails part-way is an
// error, which carries no mark: the next `pulumi up` updates that object anyway.
type protocolServer struct {
	rpc.ResourceProviderServer
	// refreshBeforeUpdate tells whether the setting in force is on.
	refreshBeforeUpdate func() bool
	// list answers a List call (server.list).
	list func(context.Context, kube.ListRequest) (kube.ListPage, error)
}

// protocolServer serves inner, pulumi-go-provider's server of s, with what it does not
// carry.
func (s *server) protocolServer(inner rpc.ResourceProviderServer) protocolServer {
	return protocolServer{
		ResourceProviderServer: inner,
		refreshBeforeUpdate:    func() bool { return s.kube.Options().RefreshBeforeUpdate },
		list:                   s.list,
	}
}

// List streams one page of the objects a query selects: Computed alone for a query
// with unknown values, else each result, then the continuation token when there are
// more.
func (s protocolServer) List(req *rpc.ListRequest, stream grpc.ServerStreamingServer[rpc.ListResponse]) error {
	query, err := plugin.UnmarshalProperties(req.GetQuery(), plugin.MarshalOptions{
		Label: "list query", KeepUnknowns: true, KeepSecrets: true, SkipInternalKeys: true,
	})
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "list %s: the query: %v", req.GetToken(), err)
	}
	page, err := s.list(stream.Context(), kube.ListRequest{
		Token: req.GetToken(), Query: resource.FromResourcePropertyMap(query), Limit: req.GetLimit(),
		PageSize: req.GetPageSize(), ContinuationToken: req.GetContinuationToken(),
	})
	if err != nil {
		return err
	}
	if page.Computed {
		return stream.Send(&rpc.ListResponse{Response: &rpc.ListResponse_Computed_{Computed: &rpc.ListResponse_Computed{}}})
	}
	for _, r := range page.Results {
		if err := stream.Send(&rpc.ListResponse{Response: &rpc.ListResponse_Result_{
			Result: &rpc.ListResponse_Result{Id: r.ID, Name: r.Name},
		}}); err != nil {
			return err
		}
	}
	if page.ContinuationToken == "" {
		return nil
	}
	return stream.Send(&rpc.ListResponse{Response: &rpc.ListResponse_Continuation_{
		Continuation: &rpc.ListResponse_Continuation{ContinuationToken: page.ContinuationToken},
	}})
}

// list runs a List call in an operation scope (the engine's Cancel, warnings once),
// with the secret strings of its query said as [secret] in its logs and its error.
func (s *server) list(ctx context.Context, req kube.ListRequest) (kube.ListPage, error) {
	ctx = secret.With(ctx, secret.Values(req.Query)...)
	ctx, done, err := s.scope(ctx, false, "list "+req.Token)
	if err != nil {
		return kube.ListPage{}, err
	}
	defer done()
	page, err := s.kube.List(ctx, req)
	return page, secret.Error(ctx, err)
}

func (s protocolServer) Check(ctx context.Context, req *rpc.CheckRequest) (*rpc.CheckResponse, error) {
	ctx = kube.WithAutonaming(ctx, autonaming(req.GetAutonaming()))
	return s.ResourceProviderServer.Check(ctx, req)
}

// autonaming is the engine's autonaming options in kube's terms; nil when the request
// carries none.
func autonaming(a *rpc.CheckRequest_AutonamingOptions) *kube.Autonaming {
	if a == nil {
		return nil
	}
	mode := kube.AutonamePropose
	switch a.GetMode() {
	case rpc.CheckRequest_AutonamingOptions_ENFORCE:
		mode = kube.AutonameEnforce
	case rpc.CheckRequest_AutonamingOptions_DISABLE:
		mode = kube.AutonameDisable
	case rpc.CheckRequest_AutonamingOptions_PROPOSE:
	}
	return &kube.Autonaming{Mode: mode, ProposedName: a.GetProposedName()}
}

func (s protocolServer) Create(ctx context.Context, req *rpc.CreateRequest) (*rpc.CreateResponse, error) {
	resp, err := s.ResourceProviderServer.Create(ctx, req)
	if resp != nil {
		resp.RefreshBeforeUpdate = s.refreshBeforeUpdate()
	}
	return resp, err
}

func (s protocolServer) Read(ctx context.Context, req *rpc.ReadRequest) (*rpc.ReadResponse, error) {
	resp, err := s.ResourceProviderServer.Read(ctx, req)
	if resp != nil {
		resp.RefreshBeforeUpdate = s.refreshBeforeUpdate()
	}
	return resp, err
}

func (s protocolServer) Update(ctx context.Context, req *rpc.UpdateRequest) (*rpc.UpdateResponse, error) {
	resp, err := s.ResourceProviderServer.Update(ctx, req)
	if resp != nil {
		resp.RefreshBeforeUpdate = s.refreshBeforeUpdate()
	}
	return resp, err
}
