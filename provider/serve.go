package provider

import (
	"context"

	p "github.com/pulumi/pulumi-go-provider"
	comProvider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
)

// Serve runs the provider as a plugin: it serves the gRPC protocol on the port it
// prints, until the engine stops it or ctx ends.
func Serve(ctx context.Context) error {
	prov := New(ctx)
	return comProvider.MainContext(ctx, Name, func(host *comProvider.HostClient) (rpc.ResourceProviderServer, error) {
		inner, err := p.RawServer(Name, Version, prov)(host)
		if err != nil {
			return nil, err
		}
		return checkOptionsServer{inner}, nil
	})
}

// checkOptionsServer passes the parts of a Check request that pulumi-go-provider drops
// (the random seed and the engine's autonaming options) on to Check through its context.
type checkOptionsServer struct {
	rpc.ResourceProviderServer
}

func (s checkOptionsServer) Check(ctx context.Context, req *rpc.CheckRequest) (*rpc.CheckResponse, error) {
	ctx = kube.WithCheckOptions(ctx, req.GetRandomSeed(), req.GetAutonaming())
	return s.ResourceProviderServer.Check(ctx, req)
}
