package kube

import (
	"strings"
	"testing"
)

func TestIsAPIDeprecation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice", true},
		{"discovery.k8s.io/v1beta1 EndpointSlice is deprecated in v1.21+, unavailable in v1.25+; use discovery.k8s.io/v1 EndpointSlice", true},
		{"policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+", true},
		{"v1 ComponentStatus is deprecated in v1.19+", true},
		{"example.com/v2alpha1 Widget is deprecated", true},
		{"spec.addressType: FQDN endpoints are deprecated", false},
		{`unknown field "spec.bogus"`, false},
		{"metadata.finalizers: \"foo\": prefer a domain-qualified finalizer name", false},
		{"the v1 Endpoints API is deprecated", false},
		{"v1 Endpoints is not deprecated", false},
		{"", false},
	} {
		if got := IsAPIDeprecation(tc.text); got != tc.want {
			t.Errorf("IsAPIDeprecation(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// The deprecation of v1 Endpoints, and only it, points to the guide to moving off it.
func TestEndpointsAdvice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		guide bool
	}{
		{"v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice", true},
		{"v1 Endpoints is deprecated", true},
		{"v1 EndpointsList is deprecated", false},
		{"discovery.k8s.io/v1beta1 EndpointSlice is deprecated in v1.21+, unavailable in v1.25+", false},
		{"v1 ComponentStatus is deprecated in v1.19+", false},
		{"spec.addressType: FQDN endpoints are deprecated", false},
		{"", false},
	} {
		got := endpointsAdvice(tc.text)
		if tc.guide != strings.Contains(got, MovingOffEndpointsGuide) || tc.guide != (got != "") {
			t.Errorf("endpointsAdvice(%q) = %q, want the guide: %v", tc.text, got, tc.guide)
		}
	}
}
