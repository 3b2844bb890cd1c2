package dataplane

import (
	"fmt"
	"slices"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
)

// emptyProgram is a YAML project without resources, to create a stack with before
// the test writes its program.
const emptyProgram = "name: dataplane\nruntime: yaml\n"

// sorted returns a sorted copy of s.
func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// serviceSlice renders an autonamed EndpointSlice of the Service service in namespace
// ns as an entry of a program's resources (see program): resource is its name in the
// program, ports a YAML flow list and endpoints YAML list items indented by eight
// spaces.
func serviceSlice(resource, ns, service string, family dataplane.Family, ports, endpoints string) string {
	return fmt.Sprintf(`  %s:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %s
        labels:
          kubernetes.io/service-name: %s
      addressType: %s
      ports: %s
      endpoints:
%s`, resource, ns, service, family, ports, endpoints)
}
