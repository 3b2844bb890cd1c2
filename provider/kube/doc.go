// Package kube implements the Kubernetes resources of the provider, EndpointSlice
// (one discovery.k8s.io/v1 EndpointSlice) and EndpointsList (a set of core/v1
// Endpoints, one per item), with client-go's dynamic client. [Kubernetes] holds them
// and what they share, the settings the provider installs at each Configure and the
// client built from them, and serves each resource ([Kubernetes.EndpointSlice],
// [Kubernetes.EndpointsList]) as [Wrap] makes it.
//
// Each resource's lifecycle (Check, Diff, Create, Read, Update, Delete) is written once,
// against a store of objects (get, create, update, remove, list): the cluster, or, when
// the renderDirectory setting names one, YAML manifests in that directory (see
// [RenderTarget]: no client is built and no cluster contacted). Render mode is the
// choice of store, made at each call from the settings in force, in one place; what
// only a cluster does (adoption, lost answers, shared reads, the warnings about
// controllers) is a cluster layer the lifecycles reach through the store. One decorator
// surrounds every resource: the answers for a cluster that cannot be reached ([Wrap]).
// The provider runs Create, Read, Update and Delete in an operation scope of its own.
//
// # Objects and values
//
// The schema's property names are the Kubernetes JSON field names, so an object and a
// property map convert one to the other value by value: the object sent is the inputs'
// metadata and the kind's fields (with the kind's default labels, such as
// [ManagedByLabel] on slices), and the outputs are the live object without apiVersion,
// kind, metadata.managedFields and the [OwnerAnnotation] (the resource's URN, which the
// state holds already; every write puts it back on the object). Inputs read back from the cluster (refresh, import)
// keep the program's own form where the live value means the same (server defaults and
// normalization stay left out), and leave out what the provider and the controllers add
// by themselves. Property values stop at a lifecycle's entry point: it decodes the
// engine's inputs and state once (decoded: the Kubernetes JSON as plain Go values,
// nil for null, validate.Computed for what a preview does not know yet, and which
// fields are secret beside), works on those and the objects built from them (an
// intent to write, the recorded object whose UID and create ID the ownership rule
// reads, a list's items), and encodes its answer once, every field that the inputs or
// the state held a secret in secret (the rule is package secret's: whole fields, never
// positions). Only Check hands the inputs as the engine gave
// them to validate, after setting the names it assigns.
//
// # IDs and pending IDs
//
// An EndpointSlice's ID is namespace/name, which is also what `pulumi import` takes (a
// bare name means the provider's namespace). An EndpointsList's ID is an opaque name
// for the set; the set itself is the items its state records, each identified by
// namespace/name, so Read, Update and Delete act on exactly the objects the state
// records. A list is imported by namespace and label and field selectors,
// `<namespace>?labelSelector=<selector>&fieldSelector=<selector>&limit=<n>`, read
// page by page.
//
// Kubernetes.List answers the provider's List (`pulumi do <token> list`): the
// objects of a namespace, or of every namespace, that label and field selectors
// select, one page of the API server's list per call (the request's page size as
// its limit, the continuation token carrying its continue token), each as the ID
// an import takes: a slice's namespace/name, and for an Endpoints object the ID of
// an EndpointsList of that object alone, `<namespace>?fieldSelector=metadata.name%3D<name>`.
// The objects Kubernetes' controllers write are left out by the label selector sent
// (so the server's pages stay exact), unless the query includes them. In render mode
// it lists the render directory's manifests.
//
// A program's get (`EndpointSlice.get(name, id)`, `EndpointsList.get`) reads an
// object by the same IDs without managing it. The engine sends a get, like an import,
// as a Read with the ID and no state (a refresh always sends the state it records),
// and Read answers it with every output of the live object. An object the ID does not
// find is an error naming it and the cluster for a get or an import, and an empty ID
// for a refresh (the object has vanished since).
//
// A create whose answer never comes (the connection broke, the API server went away)
// may or may not have taken effect, so what it may have made is recorded anyway. When
// the object's name is known (metadata.name, or a name Check chose), the state records
// that name and the next update finds the object or creates it. When the server picks
// the name (metadata.generateName), every create carries a create ID, a random value of
// the label [CreateIDLabel], and a lost answer records a pending ID,
// `<namespace>/<generateName>*`, with the create ID in the state's labels. Read, Update
// and Delete find the object by that label, so the next `pulumi up` adopts it instead of
// creating another, and the next refresh records its real ID. Once the state records
// the generated name and the UID, they look under that name, and the UID decides: a
// slice whose label another client removed stays the resource's. The label is the
// provider's own: refresh and import leave it out of the inputs, updates keep it, and
// Check rejects a program that sets it, and counts the URN annotation every write adds
// against the limit of an object's annotations.
//
// # Ownership
//
// Whose is a live object is one rule, [claim.holds] (ownership.go): the object of the
// UID the state records; else, when the state records a create ID, an object that
// carries it; else an object that carries the resource's URN (which is how an object
// the resource made after the recorded one was deleted is found); and, for a state
// that records its object by name alone (0.6.0's lost creates), an object this
// provider wrote that carries no URN, until the first answer records its UID. A create's adoption, an update, a delete, a refresh, an import, a preview's dry
// run and the search for a lost create ask it before they write, delete or record an
// object; one it does not hold is, for the resource, not there. A delete whose UID
// precondition fails deletes the object under the name that the claim holds, so that
// nothing the resource made outlives it. A create refused with a 409 stays refused
// when the read of the holder fails.
//
// A create whose answer is lost, a slice's, a list item's or that of an update which
// found its object gone, is recorded (its name, or its pending ID and create ID), and
// a create whose name the server generates is sent once: an answer in doubt has the
// object looked for by its create ID rather than sent again.
//
// # Names
//
// The namespace of an object that names none is the provider's (its namespace
// setting, else the kubeconfig context's, else "default"). An object the program names
// neither by metadata.name nor by metadata.generateName is autonamed in Check, as the
// engine asks ([WithAutonaming] carries the request's autonaming options): the
// resource name made a valid object name, '-' and 8 hex characters (or the name the
// stack's autonaming configuration gives), kept until a change replaces the object. A
// slice with generateName is named by the server; an EndpointsList item with
// generateName is named by Check, the prefix and 5 characters as the server draws them
// (the prefix cut only where the name would exceed 253 characters), and keeps that name
// on later updates, so it is updated in place. The characters Check draws come from the
// resource's URN (and, for a replacement, the name replaced; for an item, its place),
// not from the engine's random seed, which is new on every run: the run after an
// interrupted create names the object as that create did (see Create, update, delete).
//
// # Create, update, delete
//
// Every object created or updated carries its resource's URN, the annotation [OwnerAnnotation].
// A create whose name is taken by an object that carries its own URN has found what
// its own create made in a run that was killed before the state recorded it, and
// adopts the object: it writes the inputs over it (guarded by its resourceVersion) and
// answers it as created. Any other holder of the name (no URN, another stack's, another
// resource's) is an "already exists" error with the import command. An object the
// state records for the resource is not adopted either: the engine checks a
// replacement again without the previous inputs, so Check remembers the objects the
// previous inputs named, and a replacement created under that object's name (a
// targeted replace, a replaced provider) gets an "already exists" error that names the
// object as the resource's own and deleteBeforeReplace as the way out. A create whose
// connection could not be made was never sent and records nothing (see notSent). The
// annotation is the provider's own, like [CreateIDLabel].
//
// Every write previews first: with unknown inputs nothing is sent; with known inputs a
// preview is a server-side dry run, so the server's verdict shows before `up`. An
// update is a read-modify-write guarded by the object's resourceVersion (the first
// write uses the version the state records and needs no read): the fields the resource
// sets are replaced, labels, annotations, owner references and finalizers are merged
// three-way (keys the previous inputs set and the new ones drop are removed; keys other
// clients added are kept), and a write that loses a race is retried on a fresh read.
// A delete names the object's UID as a precondition, so it never deletes another object
// of the same name, and waits until the object is gone (by default at most 10 minutes);
// when the wait ends first, the error names the finalizers that hold the object. When
// the engine cancels (the user's first Ctrl-C), the wait, which is not a request, ends
// at once, and the error says that the delete was sent; the object stays in the state.
// Deletes propagate as [DefaultDeletePolicy]() unless the provider is configured otherwise.
//
// # Partial failure
//
// A write that stops part way returns the partial state with its error, so every object
// that exists, or may exist, is tracked: a create whose answer was lost records the
// object (see pending IDs), and an EndpointsList records the items written so far.
//
// # EndpointsList as a set
//
// The items are written the first alone (a failure every item would meet costs one
// request and writes nothing), then up to 16 at a time. A failure stops the writes not
// yet sent; those in flight finish. So does the engine's cancel: the items not yet sent
// are not started (the error counts them), and those in flight finish and are
// recorded. The error names the first failed item and keeps every cause, and the state
// records the set as it is, in input order: every item written (and every item whose
// create may have taken effect), none of those deleted.
// An update creates the items the set did not have, updates those it keeps (leaving
// alone those the update would not change), and deletes those it lost only after every
// write succeeded.
// A refresh lists the Endpoints of each namespace that holds 8 of the items or more, in
// one request (pages of 500), and reads the others one by one as the writes go; a
// namespace that holds more than 20 Endpoints per item, or that the client may not
// list, has its items read one by one too.
//
// # Reads that arrive together
//
// The engine sends a Read per resource, about 8 at a time. The Reads of a refresh or
// an import (and the items of EndpointsLists read one by one) of one kind and
// namespace share lists of the namespace, kept by the client for the plugin process:
// the first 7 Reads of a namespace are GETs, the 8th probes its size (a list of one
// object, whose answer says how many remain), and a Read lists the namespace (pages of
// 500) once the Reads seen are at least one per 20 objects it holds; the Reads that
// come while the list is under way wait for it. A list answers as a GET would (an
// object absent from it is gone; the create-ID checks of a refresh apply), only for
// 5 seconds after it was taken, and no longer once this process writes an object of
// the kind in the namespace (a create, update or delete; the count of Reads starts
// again). A namespace the client may not list, or whose list fails, is read by GETs
// from then on. An update's read-modify-write, a create's adoption, a delete's wait
// and the search for a lost create read afresh.
//
// # Warnings
//
// The API server's warnings (deprecations, ignored fields) reach the user through the
// engine, each once per operation ([Kubernetes.WarningScope]); that an API version is
// deprecated (v1 Endpoints) is said once per provider, so once per command, only by
// writes and reads that take effect (not by previews, whose provider is another
// process than the update's, nor by deletes), and not at all with
// suppressDeprecationWarnings; the deprecation of v1 Endpoints points to the guide to
// moving off it ([MovingOffEndpointsGuide]). Kubernetes controllers act on the objects
// this provider writes: the endpoints controller writes the Endpoints of
// every Service with a selector, the EndpointSlice controller the slices of those
// Services, and the mirroring controller copies the Endpoints of every selectorless
// Service into slices. The provider names itself as the manager of its slices
// ([ManagedBy]), leaves the controllers' bookkeeping out of imported inputs, and warns
// when an object it writes is one a controller will overwrite or delete; the lookups
// behind these warnings are best effort and bounded in time.
//
// # Unreachable clusters
//
// On a cluster, [Wrap] gives the provider's answers for an API server that cannot be
// reached: a preview falls back to Check's offline verdict with one warning per
// configuration; refresh and destroy fail naming the server, or drop the objects with
// the deleteUnreachable setting; an update fails likewise, or keeps the last state with
// skipUpdateUnreachable, as a read then does too. A connection that broke after the
// request was sent is told apart: the server was reached, and the write may have taken
// effect.
//
// # Clients
//
// The client is built on first use from the settings in force ([Kubernetes.Client]; a
// failed build is not kept, the next call tries again), so a program that never
// declares a Kubernetes resource never needs a kubeconfig.
// [NewClient] reads the kubeconfig (a path, its contents, or KUBECONFIG's files) and
// makes no request. Its rate limiter allows [DefaultQPS] and [DefaultBurst], and each
// request is bounded by [DefaultRequestTimeout], and deletes propagate as
// [DefaultDeletePolicy] (schema.json's defaults of the settings), unless configured
// otherwise. When the kubeconfig now reaches another
// cluster than the one recorded for the provider ([Resolve], [ClusterRecord]), the recorded
// kubeconfig is used: a provider's objects are read, updated and deleted on the
// cluster they were created on.
//
// # Files
//
// The files are named by resource, mechanism and idea; x_test.go tests x.go.
//
//   - slice.go: the EndpointSlice's lifecycle. list.go, list_items.go, list_read.go:
//     the EndpointsList's lifecycle, its items as a set written one by one or side by
//     side, and its Read (refresh, import).
//   - store.go: what every resource is ([Lifecycle], [Resource]), the store the
//     lifecycles write to ([RenderTarget] or the cluster) and the choice of it, and the
//     objects it holds: the kinds, their IDs (the pending ID of a create whose name the
//     server picked included), and the objects the state records per resource.
//     values.go: the edge where property values are decoded and encoded (decoded),
//     and the objects and values built past it: an object built from inputs (with its
//     default labels and secret fields), its outputs and inputs read back, what a state
//     records, a list's items, its state and its Read's answer. store_cluster.go: the cluster's store and every API call under it
//     (kindClient: create and adoption, get, the dry run of a preview, update, delete
//     and the wait, finding a lost create, reading a list's items). store_render.go,
//     render.go: the render directory's store, and its manifests (file names,
//     byte-stable YAML, drift).
//   - ownership.go: whose is a live object ([claim]).
//   - unanswered.go: a cluster that does not answer. [Wrap], the one decorator, with
//     the answers for a cluster that cannot be reached; and lost answers, a write whose
//     answer never came: which failures leave it in doubt, the partial state, create IDs.
//   - merge.go, delete.go: the three-way merge of an update; what a delete targets.
//     fanout.go: calls side by side, 16 at a time. by_namespace.go: when a
//     namespace's objects are listed rather than read one by one. read_lists.go: the
//     lists that Reads arriving together share.
//   - diff.go, keys.go, names.go: what changed and when a change replaces the object
//     (the one walk and the one rule), the keys that are not the program's, names,
//     namespaces and autonaming ([Autonaming]).
//   - errors.go, credentials.go, warnings.go: the API server's errors in plain words,
//     and the failures of a request's credentials, which are neither an unreachable
//     cluster nor a write in doubt; its warnings, and those about the controllers that
//     act on the objects.
//   - client.go, identity.go: what the resources share ([Kubernetes]: the settings in
//     force, [Options], the client built from them on first use, the record of the API
//     deprecations shown, which warnings.go keeps), the settings' defaults, and the
//     cluster the client reaches ([ClusterRecord]).
package kube
