package validate_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

func TestNamePrefix(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("abcdefghij", 30)
	tests := []struct {
		logical, want string
	}{
		{"web", "web"},
		{"webSlice", "webslice"},
		{"WEB", "web"},
		{"my_slice", "my-slice"},
		{"svc.v2", "svc.v2"},
		{"1st-slice", "1st-slice"},
		{"-lead.trail-", "lead.trail"},
		{"a..b", "a.b"},
		{"a_.b", "a.b"},
		{"web slice/v1:x", "web-slice-v1-x"},
		{"ünïcode", "n-code"},
		{"___", ""},
		{long, long[:244]},
		{strings.Repeat("a", 243) + "_b", strings.Repeat("a", 243)},
		{strings.Repeat("a", 243) + ".b", strings.Repeat("a", 243)},
	}
	for _, tt := range tests {
		t.Run(tt.logical, func(t *testing.T) {
			t.Parallel()
			got := validate.NamePrefix(tt.logical, validate.MaxObjectNameLength-9)
			if got != tt.want {
				t.Fatalf("NamePrefix(%q) = %q, want %q", tt.logical, got, tt.want)
			}
			// With the provider's suffix, the name is one the API server accepts.
			if errs := validation.IsDNS1123Subdomain(got + "-0123abcd"); got != "" && len(errs) > 0 {
				t.Fatalf("%q + suffix is not a valid object name: %v", got, errs)
			}
		})
	}
}

// FuzzNamePrefix: every resource name gives a prefix that makes a valid object name.
func FuzzNamePrefix(f *testing.F) {
	for _, s := range []string{"web", "webSlice", "my_slice", "svc.v2", "..", "-", strings.Repeat("Ab_.", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, logical string) {
		prefix := validate.NamePrefix(logical, validate.MaxObjectNameLength-9)
		if prefix == "" {
			return
		}
		if errs := validation.IsDNS1123Subdomain(prefix + "-0123abcd"); len(errs) > 0 {
			t.Fatalf("NamePrefix(%q) = %q: with a suffix not a valid name: %v", logical, prefix, errs)
		}
	})
}
