package validate

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
)

// The fuzz targets build inputs from JSON documents (with the markers of the test
// helpers: "$unknown" and {"$secret": v}) and check the invariants of every Result:
// no panic, failures and warnings sorted by path, every failure path readable by the
// engine, and normalization that is stable (validating the normalized inputs again
// gives the same inputs and the same failures). Seeds live in
// testdata/fuzz/<target>/ and in the f.Add calls.

var fuzzSeeds = []string{
	`{}`,
	`{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}]}`,
	`{"addressType":"IPv6","endpoints":[{"addresses":["::1","2001:DB8::1"],"hints":{"forZones":[{},{"name":""}]}}],"ports":[{"port":80.5},{}]}`,
	`{"addressType":"FQDN","endpoints":"$unknown","metadata":{"labels":{"":"x","a\\":"b"},"uid":"1"}}`,
	`{"metadata":{"name":{"$secret":"X"},"ownerReferences":[{"controller":true},{"controller":true}]},"addressType":{"$secret":"IPv4"}}`,
	`{"items":[{"metadata":{"name":"a"},"subsets":[{"addresses":[{"ip":"127.0.0.1"}],"notReadyAddresses":[{"ip":"127.0.0.1"}],"ports":[{"port":0},{"port":1}]}]},{"metadata":{"name":"a"}}]}`,
	`{"items":"$unknown","metadata":{"continue":"x"}}`,
	`{"items":[null,1,"x",{"subsets":[null,{"ports":[null]}]}]}`,
	`[1,2,3]`,
}

func FuzzEndpointSlice(f *testing.F) {
	fuzzValidation(f, func(in property.Map) Result { return EndpointSlice(in, Newest, Written{}) })
}

// FuzzEndpointSliceOldest holds the oldest minor's rules (node hints dropped, IPv6 in
// any form) to the same invariants.
func FuzzEndpointSliceOldest(f *testing.F) {
	fuzzValidation(f, func(in property.Map) Result { return EndpointSlice(in, Minor(OldestMinor), Written{}) })
}

func FuzzEndpointsList(f *testing.F) {
	fuzzValidation(f, func(in property.Map) Result { return EndpointsList(in, "", Newest, Written{}) })
}

// fuzzValidation seeds f and checks the invariants of validate's Result for every
// input that decodes to an object.
func fuzzValidation(f *testing.F, validate func(property.Map) Result) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, ok := propertytest.ObjectFromJSON(data)
		if !ok {
			return
		}
		checkInvariants(t, in, validate)
	})
}

func checkInvariants(t *testing.T, in property.Map, validate func(property.Map) Result) {
	r := validate(in)

	paths := make([]segments, len(r.Failures))
	for i, f := range r.Failures {
		parsed, err := resource.ParsePropertyPath(f.Path)
		if err != nil {
			t.Fatalf("failure path %q does not parse: %v", f.Path, err)
		}
		if f.Reason == "" {
			t.Fatalf("failure at %q has no reason", f.Path)
		}
		paths[i] = segments(parsed)
	}
	if !slices.IsSortedFunc(paths, comparePaths) {
		t.Fatalf("failures are not sorted by path: %v", r.Failures)
	}

	again := validate(r.Inputs)
	if diff := cmp.Diff(r.Inputs, again.Inputs, propertytest.Values); diff != "" {
		t.Fatalf("normalizing twice changes the inputs (-once +twice):\n%s", diff)
	}
	if diff := cmp.Diff(r.Failures, again.Failures); diff != "" {
		t.Fatalf("the normalized inputs fail differently (-inputs +normalized):\n%s", diff)
	}
}
