package kube

// Wrap is r as the provider serves it: r, whose lifecycle runs on the store of the
// target in force (see store), inside the one decorator every resource has,
// reachability: the answers for a cluster that cannot be reached (offline previews
// from r.previewOffline, the deleteUnreachable and skipUpdateUnreachable settings). A
// render directory reaches no cluster, so there it has nothing to answer for. (The
// provider runs Create, Read, Update and Delete in an operation scope around it: the
// engine's Cancel, the warnings shown once.)
func Wrap(r Resource) Lifecycle {
	return reachability{Lifecycle: r, offline: r.previewOffline, k: r.shared()}
}
