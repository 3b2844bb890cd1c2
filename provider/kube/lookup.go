package kube

import (
	"fmt"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
)

// lookup tells whether a Read looks up an object the stack does not record: a
// resource get (`EndpointSlice.get(name, id)` in a program) or an import. The engine
// sends the ID alone for an import, and for a get the ID with the properties the
// program passed, as both inputs and state: none from the SDKs' get methods, and null
// values carry no state either. A refresh always sends the state it records: a
// resource's outputs are never empty.
func lookup(req p.ReadRequest) bool {
	for _, v := range req.Properties.All {
		if !v.IsNull() {
			return false
		}
	}
	return true
}

// server names the API server a client reaches, for messages.
func (o kindClient) server() string {
	if o.client.REST == nil || o.client.REST.Host == "" {
		return "of the provider's kubeconfig"
	}
	return o.client.REST.Host
}

// notFound is the error of a lookup whose object does not exist, where a refresh
// answers an empty ID: the engine's own message for a get or an import names the ID
// alone, not the kind, the namespace a bare name means, nor the cluster.
func (o kindClient) notFound(rawID string, id objectID) error {
	hint := "the ID is namespace/name"
	if !strings.Contains(rawID, "/") {
		hint = fmt.Sprintf("the ID %q names no namespace, so it means the provider's namespace %q; "+
			"give it as namespace/name", rawID, id.namespace)
	}
	return fmt.Errorf("%s %s does not exist on the Kubernetes API server %s (404): %s",
		o.kind.name, id, o.server(), hint)
}
