package main

import (
	"context"
	"fmt"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/inprocess"
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

// benchmarkCheck runs the provider's Check on inputs as a Go benchmark.
func benchmarkCheck(ctx context.Context, token string, inputs property.Map) (testing.BenchmarkResult, error) {
	prov := inprocess.Provider(ctx)
	urn := resource.NewURN("bench", "bench", "", resourceType(token), "r")
	req := p.CheckRequest{Urn: urn, Inputs: inputs}
	if resp, err := prov.Check(ctx, req); err != nil {
		return testing.BenchmarkResult{}, err
	} else if len(resp.Failures) > 0 {
		return testing.BenchmarkResult{}, fmt.Errorf("the benchmark's inputs fail Check: %v", resp.Failures[0])
	}
	var failed error
	result := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := prov.Check(ctx, req); err != nil {
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
	return out, nil
}

func resourceType(token string) tokens.Type { return tokens.Type(token) }
