package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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
	merged := o.merge(live, old, old.Set("addressType", old.Get("addressType")))
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
