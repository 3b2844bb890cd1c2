package kube

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
)

// Only objects whose name the server generates get a create ID; a given one is kept,
// and the state records it where createIDOf finds it.
func TestLabelCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, given string
		wantLabel        bool
		wantID           objectID
	}{
		{"named", `{"metadata":{"name":"web","namespace":"n"}}`, "", false, objectID{"n", "web"}},
		{"named with generateName too", `{"metadata":{"name":"web","generateName":"w-","namespace":"n"}}`, "", false,
			objectID{"n", "web"}},
		{"generateName", `{"metadata":{"generateName":"web-","namespace":"n","labels":{"app":"web"}}}`, "", true,
			objectID{"n", "web-*"}},
		{"generateName, the recorded create ID", `{"metadata":{"generateName":"web-","namespace":"n"}}`, "abc", true,
			objectID{"n", "web-*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := liveObject(t, tt.doc)
			app := obj.GetLabels()["app"]
			id, err := labelCreate(obj, tt.given)
			if err != nil {
				t.Fatal(err)
			}
			if got := obj.GetLabels()[CreateIDLabel]; got != id || (id != "") != tt.wantLabel {
				t.Fatalf("create ID %q, label %q; want a label: %v", id, got, tt.wantLabel)
			}
			if tt.given != "" && id != tt.given {
				t.Errorf("create ID %q, want the given %q", id, tt.given)
			}
			if obj.GetLabels()["app"] != app {
				t.Errorf("labels %v lost app=%s", obj.GetLabels(), app)
			}
			got := idOf(obj)
			if serverNamed(obj) {
				got = pendingID(obj)
			}
			if got != tt.wantID || got.pending() != tt.wantLabel {
				t.Errorf("ID %v (pending %v), want %v", got, got.pending(), tt.wantID)
			}
			if !tt.wantLabel {
				return
			}
			state := withCreateID(inputsOf(t, tt.doc), id)
			if d := cmp.Diff(id, createIDOf(state)); d != "" {
				t.Errorf("createIDOf(withCreateID(...)) (-want +got):\n%s", d)
			}
		})
	}
}

// Two creates never share a create ID, and it is a valid label value.
func TestNewCreateID(t *testing.T) {
	t.Parallel()
	a, errA := newCreateID()
	b, errB := newCreateID()
	if errA != nil || errB != nil || a == b || len(a) != 32 {
		t.Errorf("create IDs %q, %q (%v, %v): want two different 32-character values", a, b, errA, errB)
	}
}

// The create ID label is the provider's: an import leaves it out of the inputs, a
// refresh too, and an update keeps it on the object.
func TestCreateIDLabelIsTheProviders(t *testing.T) {
	t.Parallel()
	live := liveObject(t, `{"metadata":{"name":"web-x2b4c","namespace":"n","labels":{"app":"web","`+CreateIDLabel+`":"abc"}},`+
		`"addressType":"IPv4"}`)
	imported := liveInputs(endpointSliceKind, live, inputsOf(t, `{}`))
	if got, want := mapField(mapField(imported, "metadata"), "labels").Len(), 1; got != want {
		t.Errorf("imported labels %v, want app alone", mapField(mapField(imported, "metadata"), "labels"))
	}
	old := inputsOf(t, `{"metadata":{"generateName":"web-","namespace":"n","labels":{"app":"web"}},"addressType":"IPv4"}`)
	refreshed := liveInputs(endpointSliceKind, live, old)
	if _, ok := mapField(mapField(refreshed, "metadata"), "labels").GetOk(CreateIDLabel); ok {
		t.Errorf("refreshed inputs carry the create ID: %v", refreshed)
	}
	o := kindClient{kind: endpointSliceKind}
	merged := o.kind.merge(live, old, old.Set("addressType", old.Get("addressType")))
	if merged.GetLabels()[CreateIDLabel] != "abc" {
		t.Errorf("an update drops the create ID: labels %v", merged.GetLabels())
	}
}

// A program may not set the create ID label.
func TestCreateIDFailures(t *testing.T) {
	t.Parallel()
	if f := reservedKeyFailures(inputsOf(t, `{"metadata":{"labels":{"app":"web"}}}`)); len(f) != 0 {
		t.Errorf("failures for a program without the label: %v", f)
	}
	f := reservedKeyFailures(inputsOf(t, `{"metadata":{"labels":{"`+CreateIDLabel+`":"x"}}}`))
	if len(f) != 1 || f[0].Property != `metadata.labels["`+CreateIDLabel+`"]` {
		t.Errorf("failures for a program that sets the label: %+v", f)
	}
}

// A write is ambiguous unless the server's answer says it did not take effect.
func TestAmbiguous(t *testing.T) {
	t.Parallel()
	slices := schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
	status := func(code int32, reason metav1.StatusReason) error {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason,
			Message: "rpc error: code = Unavailable desc = error reading from server: connection reset by peer"}}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"no answer", errors.New("EOF"), true},
		{"a server timeout", apierrors.NewServerTimeout(slices, "create", 1), true},
		{"an internal error", apierrors.NewInternalError(errors.New("boom")), true},
		{"etcd broke off mid-write: 500 of no reason", status(http.StatusInternalServerError, metav1.StatusReasonUnknown), true},
		{"service unavailable", status(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable), true},
		{"already exists", apierrors.NewAlreadyExists(slices, "web"), false},
		{"invalid", apierrors.NewBadRequest("bad"), false},
		{"forbidden", forbidden("no"), false},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), false},
	}
	for _, tt := range tests {
		if got := ambiguous(tt.err); got != tt.want {
			t.Errorf("%s: ambiguous(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

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
			_, err := partial(itemsFailed(tt.results), set, someUnanswered(judged(tt.results)))
			if got := strings.Contains(err.Error(), "may or may not have been written"); got != tt.want {
				t.Errorf("the partial state's message says the items may or may not have been written: %t, want %t:\n%v",
					got, tt.want, err)
			}
		})
	}
}

// The error of a write that stopped part way, a list's or a slice's, keeps its cause
// for errors.Is and errors.As, so that what answers for an unreachable cluster (see
// reachability) tells it as the cause alone; the partial state says what the error
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
			listState, listErr := partial(itemsFailed(results), newItemSet(property.Map{}), someUnanswered(judged(results)))
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
