package kube

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// pendingSuffix ends the name part of a pending ID: the server generated the name,
// and the answer that would have told it was lost.
const pendingSuffix = "*"

// pending tells whether the ID stands for an object whose generated name is not known.
func (id objectID) pending() bool { return strings.HasSuffix(id.name, pendingSuffix) }

// pendingID is the ID recorded for obj, created from metadata.generateName, when the
// answer to its create was lost.
func pendingID(obj *unstructured.Unstructured) objectID {
	return objectID{namespace: obj.GetNamespace(), name: obj.GetGenerateName() + pendingSuffix}
}

// idOrPending is the ID that names obj before it is written: its own, or its pending
// ID when the server is to pick its name.
func idOrPending(obj *unstructured.Unstructured) objectID {
	if obj.GetName() == "" {
		return pendingID(obj)
	}
	return idOf(obj)
}

// everyObjectIn stands for every object of a namespace, in messages about a list of
// them: the pending ID of an empty generateName, namespace/*.
func everyObjectIn(namespace string) objectID {
	return objectID{namespace: namespace, name: pendingSuffix}
}

// serverNamed tells whether the server picks obj's name.
func serverNamed(obj *unstructured.Unstructured) bool {
	return obj.GetName() == "" && obj.GetGenerateName() != ""
}

// newCreateID returns a random create ID, a valid label value.
func newCreateID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("internal error: making a create ID: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// labelCreate labels obj, when the server picks its name, with createID (a new one if
// empty) and returns the create ID it carries ("" when it needs none).
func labelCreate(obj *unstructured.Unstructured, createID string) (string, error) {
	if !serverNamed(obj) {
		return "", nil
	}
	if createID == "" {
		var err error
		if createID, err = newCreateID(); err != nil {
			return "", err
		}
	}
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[CreateIDLabel] = createID
	obj.SetLabels(labels)
	return createID, nil
}

// createIDOf reads the create ID a state records.
func createIDOf(state property.Map) string {
	id, _ := stringField(mapField(mapField(state, "metadata"), "labels"), CreateIDLabel)
	return id
}

// withCreateID records createID in the labels of a state's metadata.
func withCreateID(state property.Map, createID string) property.Map {
	meta := mapField(state, "metadata")
	labels := mapField(meta, "labels").Set(CreateIDLabel, property.New(createID))
	return state.Set("metadata", property.New(meta.Set("labels", property.New(labels))))
}

// recordedName is the ID of the object a state records: the name its outputs give
// (the name the server generated, once an update or a refresh has seen the object),
// else the ID's.
func recordedName(id objectID, state property.Map) objectID {
	if name, _ := stringField(mapField(state, "metadata"), "name"); name != "" {
		id.name = name
	}
	return id
}

// unconfirmedCreate tells whether the state records a create whose answer was lost:
// a pending ID, or a create ID without the UID an answer would have given.
func unconfirmedCreate(id objectID, state property.Map) bool {
	return id.pending() || createIDOf(state) != "" && uidOf(state) == ""
}

// locate finds the live object a state stands for: under the name it records, unless
// the create that made it went unanswered; then, or when the object under that name is
// gone (or is another create's), by the create ID the state records, if any. It
// answers nil when there is none.
func (o kindClient) locate(ctx context.Context, id objectID, state property.Map) (*unstructured.Unstructured, error) {
	createID := createIDOf(state)
	if !unconfirmedCreate(id, state) {
		live, err := o.get(ctx, recordedName(id, state))
		if err != nil || createID == "" || live != nil && live.GetLabels()[CreateIDLabel] == createID {
			return live, err
		}
	}
	return o.findCreated(ctx, id, state)
}

// findCreated finds the object a pending ID stands for: the object of the namespace
// that carries the create ID the state records. It answers nil when there is none
// (the create never took effect, or the object was deleted since).
func (o kindClient) findCreated(ctx context.Context, id objectID, state property.Map) (*unstructured.Unstructured, error) {
	createID := createIDOf(state)
	if createID == "" {
		return nil, fmt.Errorf("%s %s: the state records a create whose answer was lost, but no %s label to find it by; "+
			"remove the resource from the state (`pulumi state delete`) and import the object, or delete it",
			o.kind.name, id, CreateIDLabel)
	}
	list, err := o.api(id.namespace).List(ctx, metav1.ListOptions{LabelSelector: CreateIDLabel + "=" + createID})
	if err != nil {
		return nil, apiError("list", o.kind, id, err)
	}
	switch len(list.Items) {
	case 0:
		return nil, nil
	case 1:
		return &list.Items[0], nil
	}
	names := make([]string, 0, len(list.Items))
	for _, obj := range list.Items {
		names = append(names, obj.GetName())
	}
	return nil, fmt.Errorf("%s %s: %d objects carry the label %s=%s (%s), which one create wrote; "+
		"delete the ones the program does not own", o.kind.name, id, len(names), CreateIDLabel, createID,
		strings.Join(names, ", "))
}
