package kube

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// Check keeps an autoname exactly when Diff finds no replacement: both ask replacedBy.
func TestCheckKeepsAnAutonameUnlessTheChangeReplaces(t *testing.T) {
	t.Parallel()
	const urn = resource.URN("urn:pulumi:dev::proj::endpoints:discovery.k8s.io/v1:EndpointSlice::web")
	const autoname = "web-0a1b2c3d"
	olds := inputsOf(t, `{"metadata":{"name":"`+autoname+`","namespace":"apps","labels":{"a":"1"}},`+
		`"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]}`)
	tests := []struct {
		name, news string
		keep       bool
	}{
		{"no change", `{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]}`, true},
		{"a port and a label", `{"metadata":{"labels":{"a":"2"}},"addressType":"IPv4","ports":[{"port":81}]}`, true},
		{"the namespace spelled out", `{"metadata":{"namespace":"apps"},"addressType":"IPv4"}`, true},
		{"the address type", `{"addressType":"IPv6","endpoints":[{"addresses":["::1"]}],"ports":[{"port":80}]}`, false},
		{"the namespace", `{"metadata":{"namespace":"web"},"addressType":"IPv4"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			news, _, failures := assignMetadata(t.Context(), endpointSliceKind, urn, inputsOf(t, tt.news), olds, "apps", "")
			if len(failures) > 0 {
				t.Fatalf("failures: %v", failures)
			}
			name, _ := stringField(mapField(news, "metadata"), "name")
			if kept := name == autoname; kept != tt.keep {
				t.Errorf("name %q: kept %v, want %v", name, kept, tt.keep)
			}
			replaced := false
			for _, c := range diffInputs(endpointSliceKind, olds, news).DetailedDiff {
				replaced = replaced || Replaces(c.Kind)
			}
			if replaced == tt.keep {
				t.Errorf("Diff replaces: %v, but Check kept the name: %v", replaced, tt.keep)
			}
		})
	}
}
