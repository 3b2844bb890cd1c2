package kube

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
)

// Requests that fail for their credentials, in one place: the kubeconfig's credential
// plugin that failed (pluginError, which pluginFailures makes of client-go's error), a
// token that could not be made in the provider's process (cloudauth.CredentialsError),
// and a 401 answer; and the words the user reads for each (credentialsFailure). None
// of them is an unreachable cluster, and none leaves a write in doubt (see notSent).

// execPlugin is the kubeconfig's exec plugin that client-go runs for a client's
// requests, for the errors of its failures: its program, and, for a GKE, EKS or AKS
// plugin, why the program runs instead of the token being made in process (see
// cloudauth.Decide) and how to have it made there (see cloudauth.Instead).
type execPlugin struct {
	command      string
	why, instead string
}

// execFailure starts the error of a request that client-go's exec plugin round
// tripper did not send because the plugin failed
// (k8s.io/client-go/plugin/pkg/client/auth/exec: "getting credentials: %v", the
// plugin's error as text).
const execFailure = "getting credentials: "

// pluginFailures is the outermost transport of a client whose kubeconfig runs an exec
// plugin: a request that was not sent because the plugin failed fails with a
// pluginError, which names the plugin.
type pluginFailures struct {
	next   http.RoundTripper
	plugin execPlugin
}

func (t pluginFailures) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil && strings.HasPrefix(err.Error(), execFailure) {
		return nil, &pluginError{plugin: t.plugin, err: err}
	}
	return resp, err
}

// WrappedRoundTripper is the transport under this one.
func (t pluginFailures) WrappedRoundTripper() http.RoundTripper { return t.next }

// pluginError is a request that was not sent because the kubeconfig's credential
// plugin failed: its program is missing, exited with an error, or gave no
// credentials. The cluster was not asked: it is not unreachable, and nothing was
// written (see notSent).
type pluginError struct {
	plugin execPlugin
	err    error
}

// Error says which plugin failed and how (client-go's words: the first line, then what
// to do instead, then the rest, such as the kubeconfig's installHint).
func (e *pluginError) Error() string {
	run := ""
	if e.plugin.why != "" {
		run = " (run because " + e.plugin.why + ")"
	}
	first, rest, _ := strings.Cut(strings.TrimPrefix(e.err.Error(), execFailure), "\n")
	msg := fmt.Sprintf("the kubeconfig's credential plugin %s%s failed, so no request was sent: %s",
		e.plugin.command, run, first)
	if e.plugin.instead != "" {
		msg += "; " + e.plugin.instead
	}
	if rest != "" {
		msg += "\n" + rest
	}
	return msg
}

func (e *pluginError) Unwrap() error { return e.err }

// credentialsFailure is the error of the request what (`create EndpointSlice ns/web`)
// that failed with err for its credentials, or nil when err is no such failure: the
// kubeconfig's credential plugin failed, or no token could be made in the provider's
// process (both without the transport's `Post "<url>":`: the URL was not asked), or
// the API server, named by server when not "", answered 401 (to a token made in
// process, with what cloudauth says to check on the cloud).
func credentialsFailure(what, server string, err error) error {
	if server != "" {
		server = " " + server
	}
	var plugin *pluginError
	var made *cloudauth.CredentialsError
	switch {
	case errors.As(err, &plugin):
		return &reworded{msg: fmt.Sprintf("%s: %v", what, plugin), err: err}
	case errors.As(err, &made) && made.Renewal:
		return &reworded{err: err, msg: fmt.Sprintf("%s: the API server%s rejected the token made in the provider's "+
			"process (401), and no new token could be made: %v", what, server, made.Err)}
	case errors.As(err, &made):
		return &reworded{err: err, msg: fmt.Sprintf("%s: no token for the cluster could be made in the provider's "+
			"process, so no request was sent: %v", what, made.Err)}
	case cloudauth.Refused(err):
		return fmt.Errorf("%s: the API server%s rejected the credentials (401): %w", what, server, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: the API server%s rejected the credentials (401); check the kubeconfig's user: %w",
			what, server, err)
	}
	return nil
}

// reworded is err said in other words: errors.Is and errors.As still reach err.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.err }
