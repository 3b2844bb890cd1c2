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
// then: an item the server refused, or one never sent, is not in doubt.
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
