package dataplane

import (
	"fmt"
	"slices"
	"strings"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
)

// emptyProgram is a YAML project without resources, to create a stack with before
// the test writes its program.
const emptyProgram = "name: dataplane\nruntime: yaml\n"

// sorted returns a sorted copy of s.
func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// serviceSlice renders an EndpointSlice of the Service service in namespace ns as an
// entry of a program's resources (see program): resource is its name in the program,
// name its metadata.name (empty: autonamed), ports a YAML flow list and endpoints
// YAML list items indented by eight spaces (none: an empty list).
func serviceSlice(resource, name, ns, service string, family dataplane.Family, ports, endpoints string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s:\n    type: endpoints:discovery.k8s.io/v1:EndpointSlice\n    properties:\n", resource)
	fmt.Fprintf(&b, "      metadata:\n        namespace: %s\n", ns)
	if name != "" {
		fmt.Fprintf(&b, "        name: %s\n", name)
	}
	fmt.Fprintf(&b, "        labels: {kubernetes.io/service-name: %s}\n", service)
	fmt.Fprintf(&b, "      addressType: %s\n      ports: %s\n", family, ports)
	if endpoints == "" {
		b.WriteString("      endpoints: []\n")
	} else {
		b.WriteString("      endpoints:\n" + endpoints)
	}
	return b.String()
}
