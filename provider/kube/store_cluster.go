package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// clusterStore is the store of a cluster: kindClient's calls on the client built from
// the settings in force, for the resource owner. The client is built on first use, so
// a preview that needs no request needs no kubeconfig.
type clusterStore struct {
	b     clusterResource
	owner resource.URN
}

// client is the API calls for the resource's kind, for the owner. A client that
// cannot be built is a noClientError: nothing was sent.
func (s clusterStore) client(ctx context.Context) (kindClient, error) {
	o, err := s.b.connectAs(ctx, s.owner)
	if err != nil {
		return o, noClientError{err}
	}
	return o, nil
}

// noClientError is the error of a call that had no client to send it with: its
// message is the cause's.
type noClientError struct{ err error }

func (e noClientError) Error() string { return e.err.Error() }
func (e noClientError) Unwrap() error { return e.err }

func (s clusterStore) ready(ctx context.Context) error {
	_, err := s.b.client(ctx)
	return err
}

func (s clusterStore) namespace(ctx context.Context) (string, error) {
	o, err := s.client(ctx)
	if err != nil {
		return "", err
	}
	return o.client.Namespace, nil
}

func (clusterStore) preview(m property.Map) property.Map { return previewOutputs(m) }

// name labels obj with a create ID when the server picks its name.
func (clusterStore) name(obj *unstructured.Unstructured, createID string) (string, error) {
	return labelCreate(obj, createID)
}

func (s clusterStore) create(ctx context.Context, obj *unstructured.Unstructured, _ property.Map, _ string,
	dryRun, judged bool,
) (*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	if dryRun && judged {
		return o.previewCreate(ctx, obj)
	}
	return o.create(ctx, obj, dryRun)
}

func (s clusterStore) get(ctx context.Context, id objectID) (*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return o.get(ctx, id)
}

func (s clusterStore) locate(ctx context.Context, id objectID, state property.Map) (*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	if unconfirmedCreate(id, state) {
		return o.findCreated(ctx, id, state)
	}
	return o.locate(ctx, id, state)
}

func (s clusterStore) update(ctx context.Context, id objectID, state, oldInputs, inputs property.Map, _ string,
	dryRun bool,
) (*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return o.update(ctx, id, state, oldInputs, inputs, dryRun)
}

func (s clusterStore) remove(ctx context.Context, t deleteTarget, timeout time.Duration) error {
	o, err := s.client(ctx)
	if err != nil {
		return err
	}
	return o.remove(ctx, t, s.b.options().DeletePolicy, timeout)
}

func (s clusterStore) removeAll(ctx context.Context, targets []deleteTarget, timeout time.Duration) ([]objectID, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return o.removeAll(ctx, targets, s.b.options().DeletePolicy, timeout)
}

func (clusterStore) forItems(ctx context.Context, n int, do func(i int) (property.Map, error)) []itemResult {
	return forItems(ctx, n, do)
}

func (s clusterStore) readItems(ctx context.Context, recorded []listItem) ([]*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return o.readItems(ctx, recorded)
}

func (s clusterStore) list(ctx context.Context, _, namespace string, opts metav1.ListOptions,
) ([]*unstructured.Unstructured, string, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, "", err
	}
	var (
		objs            []*unstructured.Unstructured
		resourceVersion string
	)
	for {
		list, err := o.api(namespace).List(ctx, opts)
		if err != nil {
			return nil, "", apiError("list", o.kind, everyObjectIn(namespace), err)
		}
		if resourceVersion == "" {
			resourceVersion = list.GetResourceVersion()
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
		if list.GetContinue() == "" {
			return objs, resourceVersion, nil
		}
		opts.Continue = list.GetContinue()
	}
}

func (s clusterStore) notFound(ctx context.Context, rawID string, id objectID) error {
	o, err := s.client(ctx)
	if err != nil {
		return err
	}
	return o.notFound(rawID, id)
}

func (s clusterStore) noneSelected(ctx context.Context, id, namespace, selector string) error {
	o, err := s.client(ctx)
	if err != nil {
		return err
	}
	selection := "no Endpoints in namespace " + namespace
	if selector != "" {
		selection += fmt.Sprintf(" match the label selector %q", selector)
	}
	return fmt.Errorf("EndpointsList %q: %s on the Kubernetes API server %s; "+
		"the ID is <namespace>?labelSelector=<selector>", id, selection, o.server())
}

func (clusterStore) stale(context.Context, *unstructured.Unstructured, string) bool { return false }

// warnItems needs the cluster for its lookups; without a client there is no warning.
func (s clusterStore) warnItems(ctx context.Context, news, olds property.Map) {
	c, err := s.b.client(ctx)
	if err != nil {
		p.GetLogger(ctx).Debugf("no Kubernetes client, so no warnings about controllers: %v", err)
		return
	}
	warnItems(ctx, c, news, olds)
}

// warnControllers is the label check of slices, which needs no cluster.
func (s clusterStore) warnControllers(ctx context.Context, objs []*unstructured.Unstructured) {
	warnControllers(ctx, nil, s.b.kind, objs)
}

// mayExist tells whether a create that failed with err may have taken effect: it was
// sent and got no definite answer (see ambiguous).
func (clusterStore) mayExist(err error) bool {
	return ambiguous(err) && !errors.As(err, new(noClientError))
}
