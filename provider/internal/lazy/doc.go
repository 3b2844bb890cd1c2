// Package lazy builds the provider's clients on first use: a [Value] is built for a
// configuration when a call first needs it, built again when the configuration
// changes, and never built by a program that does not need it (no client, no
// credential lookup, no kubeconfig read before a call asks). Both the Kubernetes client
// and the Google API clients follow its one failure rule: a failed build is not kept,
// so the next call tries again (a kubeconfig or a credential that was missing may be
// there by then), and its error is the call's.
package lazy
