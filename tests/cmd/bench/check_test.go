package main

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// The same Check benchmarks `make bench` reports, for `go test -bench` and pprof:
//
//	go test ./tests/cmd/bench -run '^$' -bench Check -cpuprofile cpu.out
func goBenchmarkCheck(b *testing.B, token string, inputs property.Map) {
	srv := provider.New(b.Context())
	req, err := checkRequest(token, inputs)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := checkOnce(b.Context(), srv, req); err != nil {
			b.Fatalf("Check: %v", err)
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
	srv := provider.New(t.Context())
	for token, inputs := range map[string]property.Map{
		spec.EndpointSliceToken: maximalSlice(),
		spec.EndpointsListToken: bigList(1000),
	} {
		req, err := checkRequest(token, inputs)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkOnce(t.Context(), srv, req); err != nil {
			t.Errorf("%s: %v", token, err)
		}
	}
}
