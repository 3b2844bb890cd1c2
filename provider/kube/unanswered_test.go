package kube

import (
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
)

// A list's partial state says that items may or may not have been written when some
// item write got no answer (a broken connection, a 500 from etcd's timeout), and only
// then: an item the server refused, or one never sent (not started, or its connection
// refused), is not in doubt.
func TestPartialSaysUnansweredItemsMayExist(t *testing.T) {
	t.Parallel()
	endpoints := schema.GroupResource{Resource: "endpoints"}
	lost := &url.Error{Op: "Post", URL: "https://127.0.0.1:6443/api/v1/namespaces/a/endpoints", Err: io.ErrUnexpectedEOF}
	conflict := apierrors.NewAlreadyExists(endpoints, "b")
	timeout := apierrors.NewInternalError(errors.New("etcdserver: request timed out"))
	results := func(errs ...error) []itemResult {
		out := []itemResult{{sent: true}}
		for _, err := range errs {
			out = append(out, itemResult{sent: true, err: err})
		}
		return out
	}
	tests := []struct {
		name    string
		results []itemResult
		want    bool
	}{
		{"a lost answer alone", results(lost), true},
		{"a refused connection: nothing was sent", results(refusedError(t)), false},
		{"a refusal, then a lost answer", results(conflict, lost), true},
		{"a refusal, then etcd's timeout", results(conflict, timeout), true},
		{"refusals only", results(conflict, conflict), false},
		{"items not started once the engine cancels", append(results(conflict),
			itemResult{err: &interrupt.NotStartedError{What: "items[2]"}}), false},
		{"an item not sent after a failure", append(results(lost), itemResult{}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set := newItemSet(property.Map{})
			_, err := partial(itemsFailed(tt.results), set, someUnanswered(tt.results))
			if got := strings.Contains(err.Error(), "may or may not have been written"); got != tt.want {
				t.Errorf("the partial state's message says the items may or may not have been written: %t, want %t:\n%v",
					got, tt.want, err)
			}
		})
	}
}

// The error of a write that stopped part way, a list's or a slice's, keeps its cause
// for errors.Is and errors.As, so that what answers for an unreachable cluster (see
// Unreachable) tells it as the cause alone; the partial state says what the error
// says.
func TestPartialKeepsTheCause(t *testing.T) {
	t.Parallel()
	id := objectID{namespace: "ns", name: "web"}
	for _, tt := range []struct {
		name  string
		cause error
	}{
		{"a refused connection", refusedError(t)},
		{"a lost answer", &url.Error{Op: "Put", URL: "https://127.0.0.1:6443/api/v1/namespaces/ns/endpoints/web",
			Err: io.ErrUnexpectedEOF}},
		{"an answer from the server", apierrors.NewForbidden(endpointsKind.resource.GroupResource(), "web",
			errors.New("denied"))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			results := []itemResult{{sent: true}, {sent: true, err: apiError("update", endpointsKind, id, tt.cause)}}
			listState, listErr := partial(itemsFailed(results), newItemSet(property.Map{}), someUnanswered(results))
			sliceState, sliceErr := partialFailure(unconfirmed(endpointSliceKind, id, tt.cause))
			for _, c := range []struct {
				what   string
				reason []string
				err    error
			}{{"list", listState.Reasons, listErr}, {"slice", sliceState.Reasons, sliceErr}} {
				var status apierrors.APIStatus
				if !errors.Is(c.err, tt.cause) || errors.As(c.err, &status) != errors.As(tt.cause, &status) {
					t.Errorf("%s: errors.Is and errors.As do not reach the cause %v through %v", c.what, tt.cause, c.err)
				}
				if clusterGone(c.err) != clusterGone(tt.cause) || answerLost(c.err) != answerLost(tt.cause) ||
					notSent(c.err) != notSent(tt.cause) {
					t.Errorf("%s: %v is classified apart from its cause %v", c.what, c.err, tt.cause)
				}
				if len(c.reason) != 1 || c.reason[0] != c.err.Error() {
					t.Errorf("%s: the partial state says %q, the error %q", c.what, c.reason, c.err)
				}
			}
		})
	}
}
