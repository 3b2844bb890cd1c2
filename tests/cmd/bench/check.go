package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// maximalSlice is the largest EndpointSlice the API accepts: 1000 endpoints of 100
// addresses each and 100 ports.
func maximalSlice() property.Map {
	endpoints := make([]property.Value, 1000)
	for i := range endpoints {
		addrs := make([]property.Value, 100)
		for j := range addrs {
			addrs[j] = property.New(fmt.Sprintf("10.%d.%d.%d", i/250, i%250, j+1))
		}
		endpoints[i] = property.New(map[string]property.Value{
			"addresses":  property.New(addrs),
			"conditions": property.New(map[string]property.Value{"ready": property.New(true)}),
			"zone":       property.New("zone-a"),
		})
	}
	ports := make([]property.Value, 100)
	for i := range ports {
		ports[i] = property.New(map[string]property.Value{
			"name": property.New(fmt.Sprintf("port-%d", i)),
			"port": property.New(float64(8000 + i)),
		})
	}
	return property.NewMap(map[string]property.Value{
		"metadata":    property.New(map[string]property.Value{"name": property.New("max"), "namespace": property.New("default")}),
		"addressType": property.New("IPv4"),
		"endpoints":   property.New(endpoints),
		"ports":       property.New(ports),
	})
}

// bigList is an EndpointsList of n items.
func bigList(n int) property.Map {
	items := make([]property.Value, n)
	for i := range items {
		items[i] = property.New(map[string]property.Value{
			"metadata": property.New(map[string]property.Value{
				"name": property.New(fmt.Sprintf("svc-%d", i)), "namespace": property.New("default"),
			}),
			"subsets": property.New([]property.Value{property.New(map[string]property.Value{
				"addresses": property.New([]property.Value{property.New(map[string]property.Value{
					"ip": property.New(fmt.Sprintf("10.%d.%d.1", i/250, i%250)),
				})}),
				"ports": property.New([]property.Value{property.New(map[string]property.Value{
					"name": property.New("http"), "port": property.New(80.0),
				})}),
			})}),
		})
	}
	return property.NewMap(map[string]property.Value{"items": property.New(items)})
}

type checkFigures struct {
	name   string
	result testing.BenchmarkResult
}

// checkRequest is the engine's Check request of inputs for a resource of type token,
// marshalled as the engine marshals it.
func checkRequest(token string, inputs property.Map) (*rpc.CheckRequest, error) {
	news, err := plugin.MarshalProperties(resource.ToResourcePropertyValue(property.New(inputs)).ObjectValue(),
		plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true})
	if err != nil {
		return nil, err
	}
	urn := resource.NewURN("bench", "bench", "", resourceType(token), "r")
	return &rpc.CheckRequest{Urn: string(urn), Name: urn.Name(), Type: token, News: news}, nil
}

// checkOnce runs the plugin's Check of req on srv, failing when the inputs do.
func checkOnce(ctx context.Context, srv rpc.ResourceProviderServer, req *rpc.CheckRequest) error {
	resp, err := srv.Check(ctx, req)
	if err != nil {
		return err
	}
	if f := resp.GetFailures(); len(f) > 0 {
		return fmt.Errorf("the benchmark's inputs fail Check: %s: %s", f[0].GetProperty(), f[0].GetReason())
	}
	return nil
}

// benchmarkCheck runs the plugin's Check on inputs as a Go benchmark: the gRPC server
// it serves (provider.New) unmarshals the request, checks and marshals its answer; the
// request is marshalled once, as the engine's is, outside the loop.
func benchmarkCheck(ctx context.Context, token string, inputs property.Map) (testing.BenchmarkResult, error) {
	srv := provider.New(ctx)
	req, err := checkRequest(token, inputs)
	if err != nil {
		return testing.BenchmarkResult{}, err
	}
	if err := checkOnce(ctx, srv, req); err != nil {
		return testing.BenchmarkResult{}, err
	}
	var failed error
	result := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := checkOnce(ctx, srv, req); err != nil {
				failed = err
				b.FailNow()
			}
		}
	})
	return result, failed
}

func measureCheck(ctx context.Context) ([]checkFigures, error) {
	cases := []struct {
		name, token string
		inputs      property.Map
	}{
		{"EndpointSlice: 1000 endpoints x 100 addresses, 100 ports", spec.EndpointSliceToken, maximalSlice()},
		{"EndpointsList: 1000 items", spec.EndpointsListToken, bigList(1000)},
	}
	var out []checkFigures
	for _, c := range cases {
		r, err := benchmarkCheck(ctx, c.token, c.inputs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		out = append(out, checkFigures{name: c.name, result: r})
	}
	rules := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		inputs := maximalSlice()
		for b.Loop() {
			validate.EndpointSlice(inputs, validate.Newest, validate.Written{})
		}
	})
	return append(out, checkFigures{name: rulesAlone, result: rules}), nil
}

// rulesAlone names the figure of the largest slice's rules without the protocol: what
// of the plugin's Check is the provider's own.
const rulesAlone = "the same EndpointSlice, the rules alone (`validate.EndpointSlice`, no gRPC)"

func resourceType(token string) tokens.Type { return tokens.Type(token) }
