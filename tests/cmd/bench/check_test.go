package main

import (
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/inprocess"
)

// The same Check benchmarks `make bench` reports, for `go test -bench` and pprof:
//
//	go test ./tests/cmd/bench -run '^$' -bench Check -cpuprofile cpu.out
func goBenchmarkCheck(b *testing.B, token string, inputs property.Map) {
	prov := inprocess.Provider(b.Context())
	req := p.CheckRequest{Urn: resource.NewURN("bench", "bench", "", resourceType(token), "r"), Inputs: inputs}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := prov.Check(b.Context(), req)
		if err != nil || len(resp.Failures) > 0 {
			b.Fatalf("Check: %v %v", err, resp.Failures)
		}
	}
}

func BenchmarkCheckMaximalSlice(b *testing.B) {
	goBenchmarkCheck(b, spec.EndpointSliceToken, maximalSlice())
}

func BenchmarkCheckEndpointsList1000(b *testing.B) {
	goBenchmarkCheck(b, spec.EndpointsListToken, bigList(1000))
}

// The fixtures must pass Check, or the benchmarks measure the failure path.
func TestBenchmarkInputsAreValid(t *testing.T) {
	t.Parallel()
	prov := inprocess.Provider(t.Context())
	for token, inputs := range map[string]property.Map{
		spec.EndpointSliceToken: maximalSlice(),
		spec.EndpointsListToken: bigList(1000),
	} {
		resp, err := prov.Check(t.Context(), p.CheckRequest{
			Urn: resource.NewURN("bench", "bench", "", resourceType(token), "r"), Inputs: inputs,
		})
		if err != nil || len(resp.Failures) > 0 {
			t.Errorf("%s: %v %v", token, err, resp.Failures)
		}
	}
}
