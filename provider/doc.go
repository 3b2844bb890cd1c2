// Package provider implements the pulumi-endpoints resource provider: the plugin the
// Pulumi engine runs as pulumi-resource-endpoints. It serves the embedded schema.json,
// reads the provider configuration, keeps each provider on one cluster, and routes
// every resource and function call to the package that implements it.
//
// # How a call flows
//
// The engine talks gRPC to Serve, which hands each call to pulumi-go-provider and from
// there to the methods New lists (provider.go; Serve also passes Check the autonaming
// options that pulumi-go-provider drops):
//
//   - GetSchema answers schema.json with the provider's Version stamped in.
//   - CheckConfig, DiffConfig and Configure handle the provider configuration
//     (config.go, identity.go, below).
//   - Check, Diff, Create, Read, Update and Delete find the resource of the request's
//     type token (endpoints:discovery.k8s.io/v1:EndpointSlice or
//     endpoints:core/v1:EndpointsList) and pass the call on to its lifecycle in package
//     kube (kube.Kubernetes serves both, with the settings Configure installs in it),
//     Create, Read, Update and Delete within an operation scope (provider.go's scope:
//     the engine's Cancel, the warnings shown once). Check there runs the rules of
//     package validate; the others write to the store of the target the settings name
//     (the cluster, or the render directory). An unknown token is an error that lists
//     the tokens served.
//   - Invoke finds the function of the token and passes the call on to package
//     google, which checks the arguments and calls the Google API.
//   - Cancel stops new calls, then every call in flight (see below).
//
// Every call passes first through guarded (guard.go): a panic while serving it, in
// this provider or in the libraries beneath, is recovered, logged with its stack, and
// answered as an Internal error naming the call ("internal error in Check of <urn>:
// ...; please report it"), so that one bad input never ends the plugin. Goroutines a
// call starts (a list's items side by side, a lookup's attempt) carry their panics
// back to the call's goroutine (package internal/crash).
//
// # Configuration
//
// Config is the typed configuration: every key of schema.json's config.variables sets
// one field, read from the engine's arguments or else from the environment variables
// the schema names. CheckConfig reports a malformed key, or one of the wrong type, as
// a failure of that key naming the type it takes (a duration given as a bare number
// too: it names no unit), showing no value the program or the schema marks secret, and
// marks the keys the schema calls secret; Configure installs the configuration and
// forgets the clients of the previous one. Clients are built on first use, so
// Configure reads no kubeconfig and needs no Google credentials.
//
// # Cluster identity
//
// A provider's objects live on one cluster. CheckConfig records, under reserved keys of
// the provider's inputs, which cluster the kubeconfig reaches (its server and CA, or
// the clusterIdentifier setting) and the kubeconfig of the context in use. DiffConfig
// replaces the provider, and with it every object it manages, only when the recorded
// cluster changes; changed credentials or context names that reach the same cluster
// are no change, and the Configure that follows uses the new inputs. A provider
// configured from an old state reaches the cluster its objects are on: with the
// kubeconfig as it is now when that reaches the recorded cluster (or a
// clusterIdentifier vouches for it), else with the recorded kubeconfig.
//
// # Cancellation and scope
//
// The engine cancels in two steps (pulumi v3.256.0): on the user's first interrupt it
// starts no further step, calls Cancel, and waits for the steps in flight, recording
// their results; on a second interrupt, and whenever it closes the provider, it calls
// Cancel again and then kills the provider. The provider follows: after the first
// Cancel, a Create, Read, Update, Delete or Invoke that arrives fails at once with an
// error saying it was not started because the engine is cancelling, and within an
// operation in flight nothing new starts either (EndpointsList items not yet sent are
// refused, and recorded as not written), while requests already sent finish within
// their own deadline (requestTimeout) so that what landed is recorded as done. Waits
// that are not requests end at once (a delete's wait for the object to be gone says
// that the delete was sent), and so do lookups, which write nothing. Any later Cancel
// ends every operation at once. Package interrupt carries the first Cancel down.
//
// Every Create, Read, Update, Delete and Invoke runs in a scope: its context ends when
// the request's does or at the second Cancel (then with a cause that says so), it sees
// the first Cancel (see above), and each distinct API-server warning within it is shown
// once. The context passed to New bounds the provider's whole life.
package provider
