package provider

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"

	p "github.com/pulumi/pulumi-go-provider"
	comProvider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

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
				p.GetLogger(ctx).Warningf("%s: the CPU profile may be incomplete: %v", CPUProfileEnv, err)
			}
		}()
	}
	prov := New(ctx)
	// The packages' initialisation (Pulumi's schema and workspace packages compile JSON
	// schemas) leaves megabytes of garbage. A plugin runs for the whole command, beside
	// one of each other provider, so that memory goes back to the system, while the
	// server starts rather than before it.
	go debug.FreeOSMemory()
	return comProvider.MainContext(ctx, Name, func(host *comProvider.HostClient) (rpc.ResourceProviderServer, error) {
		inner, err := p.RawServer(Name, Version, prov)(host)
		if err != nil {
			return nil, err
		}
		return checkOptionsServer{inner}, nil
	})
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

// checkOptionsServer passes the part of a Check request that pulumi-go-provider drops
// (the engine's autonaming options) on to Check through its context.
type checkOptionsServer struct {
	rpc.ResourceProviderServer
}

func (s checkOptionsServer) Check(ctx context.Context, req *rpc.CheckRequest) (*rpc.CheckResponse, error) {
	ctx = kube.WithAutonaming(ctx, req.GetAutonaming())
	return s.ResourceProviderServer.Check(ctx, req)
}
