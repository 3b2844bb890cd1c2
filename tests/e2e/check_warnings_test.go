package e2e

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// checkWarningsProgram is what a user writes: camelCase logical names, a slice with a
// fixed name and no ports or conditions (its addressType and address vary), and an
// autonamed FQDN slice.
const checkWarningsProgram = `name: e2e-check-warnings
runtime: yaml
resources:
  dbSlice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: db
        namespace: %[1]s
      addressType: %[2]s
      endpoints:
        - addresses: ["%[3]s"]
  cdnEdge:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: FQDN
      endpoints:
        - addresses: ["edge.example.com"]
`

var (
	fqdnCheckWarning = regexp.MustCompile(`addressType: FQDN endpoints are deprecated by Kubernetes`)
	deleteFirst      = regexp.MustCompile(`EndpointSlice \S+/db is replaced \(addressType changes\) and keeps its name, ` +
		`so the old slice is deleted before the new one is created`)
)

// The provider's own warnings through the CLI, as a user meets them: Check warns of
// what a change brings, so an unchanged program previews quietly; a change that
// replaces a slice keeping its name warns, at preview and at up, that the old one goes
// first; after it, a preview is quiet again.
func TestCheckWarningsAsTheCLIShowsThem(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(checkWarningsProgram, ns, "IPv4", "10.0.0.1"))
	for _, step := range []struct {
		name                string
		addressType, ip     string
		args                []string
		wantFQDN, wantFirst bool
	}{
		{"first up", "IPv4", "10.0.0.1", []string{"up", "--yes", "--non-interactive"}, true, false},
		{"preview of the same program", "IPv4", "10.0.0.1", []string{"preview", "--non-interactive", "--expect-no-changes"}, false, false},
		{"refresh", "IPv4", "10.0.0.1", []string{"refresh", "--yes", "--non-interactive"}, false, false},
		{"preview of a new addressType", "IPv6", "fd00::1", []string{"preview", "--non-interactive"}, false, true},
		{"up of a new addressType", "IPv6", "fd00::1", []string{"up", "--yes", "--non-interactive"}, false, true},
		{"preview after it", "IPv6", "fd00::1", []string{"preview", "--non-interactive", "--expect-no-changes"}, false, false},
	} {
		s.WriteProject(fmt.Sprintf(checkWarningsProgram, ns, step.addressType, step.ip))
		out := s.runEnv(nil, step.args...)
		if got := fqdnCheckWarning.MatchString(out); got != step.wantFQDN {
			t.Errorf("%s: the FQDN slice's Check warning shown: %v, want %v:\n%s", step.name, got, step.wantFQDN, out)
		}
		if got := deleteFirst.MatchString(out); got != step.wantFirst {
			t.Errorf("%s: the delete-first warning shown: %v, want %v:\n%s", step.name, got, step.wantFirst, out)
		}
	}
	s.runEnv(nil, "destroy", "--yes", "--non-interactive")
}
