package kube

import (
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// DeletePolicy says how a delete treats an object's dependents.
type DeletePolicy = metav1.DeletionPropagation

// defaultDeleteTimeout bounds a delete that the program gave no custom timeout.
const defaultDeleteTimeout = 10 * time.Minute

// deleteTarget is one object to delete: its name and the claim of the state that
// records it (see claim). Another object under the same name (recreated by a
// controller or a person) is not the target; uid is the target's, once resolved.
type deleteTarget struct {
	id    objectID
	claim claim
	uid   types.UID
}

var errDeleteTimeout = errors.New("delete timed out")
