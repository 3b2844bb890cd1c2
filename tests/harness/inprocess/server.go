package inprocess

import (
	"context"
	"errors"

	p "github.com/pulumi/pulumi-go-provider"
	rpcprovider "github.com/pulumi/pulumi-go-provider/middleware/rpc"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
)

// Provider is the gRPC server the plugin serves (provider.New) as a p.Provider: each
// call is marshalled into the engine's protocol and its answer unmarshalled back, so
// a test runs everything the plugin runs (autonaming, refresh marks, List and the
// operation scope included). pulumi-go-provider's projection of a gRPC server does
// the marshalling, but drops the partial state of a create or update that fails
// part-way, and with it the ID of a create that may have taken effect; those two are
// projected here instead, keeping it.
func Provider(ctx context.Context) p.Provider {
	srv := provider.New(ctx)
	prov := rpcprovider.Provider(srv)
	prov.Create = func(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
		props, err := toRPC(req.Properties)
		if err != nil {
			return p.CreateResponse{}, err
		}
		resp, err := srv.Create(ctx, &rpc.CreateRequest{
			Urn: string(req.Urn), Name: req.Urn.Name(), Type: req.Urn.Type().String(),
			Properties: props, Timeout: req.Timeout, Preview: req.DryRun,
		})
		if failed := initFailed(err); failed != nil {
			return p.CreateResponse{
				ID: failed.GetId(), Properties: fromRPC(failed.GetProperties()),
				PartialState: &p.InitializationFailed{Reasons: failed.GetReasons()},
			}, err
		}
		if err != nil {
			return p.CreateResponse{}, err
		}
		return p.CreateResponse{ID: resp.GetId(), Properties: fromRPC(resp.GetProperties())}, nil
	}
	prov.Update = func(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
		olds, oldsErr := toRPC(req.State)
		news, newsErr := toRPC(req.Inputs)
		oldInputs, oldInputsErr := toRPC(req.OldInputs)
		if err := errors.Join(oldsErr, newsErr, oldInputsErr); err != nil {
			return p.UpdateResponse{}, err
		}
		resp, err := srv.Update(ctx, &rpc.UpdateRequest{
			Id: req.ID, Urn: string(req.Urn), Name: req.Urn.Name(), Type: req.Urn.Type().String(),
			Olds: olds, News: news, OldInputs: oldInputs, Timeout: req.Timeout,
			IgnoreChanges: req.IgnoreChanges, Preview: req.DryRun,
		})
		if failed := initFailed(err); failed != nil {
			return p.UpdateResponse{
				Properties:   fromRPC(failed.GetProperties()),
				PartialState: &p.InitializationFailed{Reasons: failed.GetReasons()},
			}, err
		}
		if err != nil {
			return p.UpdateResponse{}, err
		}
		return p.UpdateResponse{Properties: fromRPC(resp.GetProperties())}, nil
	}
	return prov
}

// initFailed is the partial state an error of the protocol carries, nil for none.
func initFailed(err error) *rpc.ErrorResourceInitFailed {
	st, ok := status.FromError(err)
	if !ok {
		return nil
	}
	for _, d := range st.Details() {
		if failed, ok := d.(*rpc.ErrorResourceInitFailed); ok {
			return failed
		}
	}
	return nil
}

// wire is how the engine marshals the provider's properties: it keeps unknowns and
// secrets, which the provider accepts.
var wire = plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, KeepResources: true}

func toRPC(m property.Map) (*structpb.Struct, error) {
	return plugin.MarshalProperties(resource.ToResourcePropertyValue(property.New(m)).ObjectValue(), wire)
}

// fromRPC unmarshals properties the provider sent; they are its own, so well formed.
func fromRPC(s *structpb.Struct) property.Map {
	m, err := plugin.UnmarshalProperties(s, wire)
	if err != nil {
		panic(err)
	}
	return resource.FromResourcePropertyValue(resource.NewProperty(m)).AsMap()
}
