package kube

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
)

// What the user is warned of, in one place: the API server's warnings, shown once per
// operation (warningLogger, Kubernetes.WarningScope), and the objects a Kubernetes
// controller will overwrite or delete (warnControllers for slices, warnEndpoints for
// Endpoints), below.

// warningLogger passes the API server's warnings (deprecations, ignored fields) on to
// the user through the engine, attached to the resource being worked on. Within one
// operation (see Kubernetes.WarningScope) each distinct warning is shown once, however
// many requests draw it. A warning that the requested API version is deprecated is
// shown once per deprecations record (one per provider, so once per command), and not
// at all in a scope without one.
type warningLogger struct{}

type warningScopeKey struct{}

// warningScope is what one operation has shown, and where API deprecations are
// recorded.
type warningScope struct {
	seen sync.Map
	// deprecations records the API deprecations shown; nil hides them.
	deprecations *deprecations
}

// deprecations records the API deprecation warnings a provider has shown, so that
// each is shown once in the provider's life. The engine starts a provider for each
// command (preview, up, refresh, destroy), so that is once per command.
type deprecations struct {
	said sync.Map
}

// WarningScope starts an operation whose API-server warnings are shown once each.
// deprecationsShown tells whether the operation may show that an API version is
// deprecated (writes that take effect and reads, not previews or deletes); such a
// warning is then shown once in the provider's life, unless the
// suppressDeprecationWarnings setting in force hides it.
func (k *Kubernetes) WarningScope(ctx context.Context, deprecationsShown bool) context.Context {
	k.mu.RLock()
	suppress := k.cfg.SuppressDeprecationWarnings
	k.mu.RUnlock()
	said := &k.deprecations
	if !deprecationsShown || suppress {
		said = nil
	}
	return context.WithValue(ctx, warningScopeKey{}, &warningScope{deprecations: said})
}

// apiDeprecation matches the warning the API server sends with every request to a
// deprecated API version (k8s.io/apiserver/pkg/endpoints/deprecation): "<group/version>
// <Kind> is deprecated in v1.X+, unavailable in v1.Y+; use <replacement>", such as
// "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice".
// Warnings about a field or value ("spec.addressType: FQDN endpoints are deprecated")
// are not API deprecations.
var apiDeprecation = regexp.MustCompile(`^(?:[a-z0-9]([a-z0-9.-]*[a-z0-9])?/)?v[0-9]+(?:(?:alpha|beta)[0-9]+)? [A-Z][A-Za-z0-9]* is deprecated\b`)

// IsAPIDeprecation tells whether an API-server warning says that the requested API
// version is deprecated.
func IsAPIDeprecation(text string) bool {
	return apiDeprecation.MatchString(text)
}

func (warningLogger) HandleWarningHeaderWithContext(ctx context.Context, _ int, _ string, text string) {
	if text == "" {
		return
	}
	if scope, ok := ctx.Value(warningScopeKey{}).(*warningScope); ok {
		if IsAPIDeprecation(text) {
			if scope.deprecations == nil {
				return
			}
			if _, dup := scope.deprecations.said.LoadOrStore(text, struct{}{}); dup {
				return
			}
		}
		if _, dup := scope.seen.LoadOrStore(text, struct{}{}); dup {
			return
		}
	}
	secret.Logger(ctx).Warning("kubernetes API server: " + text + endpointsAdvice(text))
}

// MovingOffEndpointsGuide is the guide to moving the Services of an EndpointsList to
// EndpointSlices without dropping a request.
const MovingOffEndpointsGuide = "https://github.com/endpoints-provider/pulumi-endpoints/blob/main/docs/guides/moving-off-endpoints.md"

// ReplacingASliceGuide is the guide's section on what replacing a slice costs the
// requests in flight, and how to replace one without a gap.
const ReplacingASliceGuide = "https://github.com/endpoints-provider/pulumi-endpoints/blob/main/docs/guides/traffic.md#replacing-a-slice"

// replacedInPlaceWarning is the warning for a slice id that a change d replaces under
// the same name: the engine deletes it before it creates the replacement, so the
// Service has none of its endpoints in between.
func replacedInPlaceWarning(id objectID, d p.DiffResponse) string {
	var props []string
	for prop, c := range d.DetailedDiff {
		if Replaces(c.Kind) {
			props = append(props, prop)
		}
	}
	slices.Sort(props)
	return fmt.Sprintf("EndpointSlice %s is replaced (%s changes) and keeps its name, so the old slice is deleted "+
		"before the new one is created: its Service has none of these endpoints in between. To create the new "+
		"slice first, give it a new metadata.name in the same change, or let it be autonamed (%s)",
		id, strings.Join(props, ", "), ReplacingASliceGuide)
}

// endpointsAdvice is what the provider adds to the API server's warning text: for the
// deprecation of v1 Endpoints, where to read how to move off it; nothing otherwise.
func endpointsAdvice(text string) string {
	if !IsAPIDeprecation(text) || !strings.HasPrefix(text, "v1 Endpoints ") {
		return ""
	}
	return " (to move an EndpointsList's Services to EndpointSlices without dropping a request, see " +
		MovingOffEndpointsGuide + ")"
}

// The controllers' warnings.

// The values of ManagedByLabel that name Kubernetes' own controllers.
const (
	endpointSliceController = "endpointslice-controller.k8s.io"
	mirroringController     = "endpointslicemirroring-controller.k8s.io"
)

// serviceResource is core/v1 Services, which the warnings look up.
var serviceResource = schema.GroupVersionResource{Version: "v1", Resource: "services"}

const (
	// lookupTimeout bounds the lookups behind the warnings: they must not slow a
	// preview down, and a failed one draws no warning.
	lookupTimeout = 5 * time.Second
	// lookupParallelism bounds the lookups in flight at once.
	lookupParallelism = 8
	// serviceListPage is the size of a page of the list of a namespace's Services that
	// answers for the items in it (see by_namespace.go).
	serviceListPage = 100
)

// serviceLookups is how the Service lookups behind the warnings run: side by side,
// each for an object named by its place among those warned about, and a lookup not
// started when the engine cancels draws no warning.
var serviceLookups = fanOut{
	what:  "lookup(s)",
	name:  func(i int) string { return fmt.Sprintf("the lookup of the Service of object %d", i) },
	limit: lookupParallelism,
}

// warnControllers warns about the slices among objs that a Kubernetes controller will
// overwrite or delete: those labelled as the EndpointSlice controllers' own (see
// managedByWarning). The label check needs no cluster; Endpoints, which need the
// Services of their names, are warnEndpoints'.
func warnControllers(ctx context.Context, k kind, objs []*unstructured.Unstructured) {
	if k.name != endpointSliceKind.name {
		return
	}
	for _, obj := range objs {
		if msg := managedByWarning(obj); msg != "" {
			secret.Logger(ctx).Warning(msg)
		}
	}
}

// warnEndpoints warns about the Endpoints among objs that the endpoints controller will
// overwrite or delete (see selectorWarning). The Service lookups are best effort: an
// error (no permission, no cluster) draws no warning, only a debug message. A namespace
// that holds enough of the objects has its Services listed (see by_namespace.go). In a
// preview, Endpoints without a Service of their name draw no warning: the program may
// create the Service in the same run (the write of `pulumi up` warns if it still has
// none).
func warnEndpoints(ctx context.Context, c *Client, objs []*unstructured.Unstructured, preview bool) {
	log := secret.Logger(ctx)
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	msgs := make([]string, len(objs))
	ids := make([]objectID, len(objs))
	for i, obj := range objs {
		ids[i] = idOf(obj)
	}
	namespaces, byNamespace := groupByNamespace(ids)
	var oneByOne []int
	for _, ns := range namespaces {
		indexes := byNamespace[ns]
		if len(indexes) >= listMin {
			// One list of the namespace's Services answers for all its items.
			if services, ok := listServices(ctx, c, ns, len(indexes)); ok {
				for _, i := range indexes {
					msgs[i] = serviceWarning(ids[i], services[ids[i].name], preview)
				}
				continue
			}
		}
		oneByOne = append(oneByOne, indexes...)
	}
	serviceLookups.run(ctx, len(oneByOne), func(j int) error {
		i := oneByOne[j]
		msgs[i] = selectorWarning(ctx, c, ids[i], preview)
		return nil // a failed lookup draws no warning
	})
	for _, msg := range msgs {
		if msg != "" {
			log.Warning(msg)
		}
	}
}

// listServices returns the Services of namespace ns by name, for the warnings about
// items Endpoints in it to be written. It gives up (ok false: the caller looks the
// items' Services up one by one) when the list fails, or when the namespace holds too
// many Services (see namespaceList.byName).
func listServices(ctx context.Context, c *Client, ns string, items int) (map[string]*unstructured.Unstructured, bool) {
	api := c.Dynamic.Resource(serviceResource).Namespace(ns)
	services, listed, err := namespaceList{api: api, page: serviceListPage}.byName(ctx, items)
	if err != nil {
		secret.Logger(ctx).Debugf("listing the Services of namespace %s failed; looking them up one by one: %v", ns, err)
		return nil, false
	}
	return services, listed
}

// managedByWarning is the warning for a slice labelled as one of a controller's own.
func managedByWarning(obj *unstructured.Unstructured) string {
	manager := obj.GetLabels()[ManagedByLabel]
	var who, when string
	switch manager {
	case endpointSliceController:
		who, when = "the EndpointSlice controller", "the slices of a Service with a selector"
	case mirroringController:
		who, when = "the EndpointSlice mirroring controller", "the slices mirrored from the Endpoints of a selectorless Service"
	default:
		return ""
	}
	return fmt.Sprintf("EndpointSlice %s has label %s=%s: %s takes it for one of its own (it keeps %s) and will "+
		"overwrite or delete it; leave the label out (the provider then sets %s=%s) or give it another value",
		idOrPending(obj), ManagedByLabel, manager, who, when, ManagedByLabel, ManagedBy)
}

// selectorWarning is the warning for Endpoints the endpoints controller will
// overwrite or delete: those named after a Service with a selector, whose Endpoints it
// writes, and those with no Service of their name, which it deletes (when it starts,
// and when Endpoints of that name are deleted). "" when there is none or the lookup
// fails.
func selectorWarning(ctx context.Context, c *Client, id objectID, preview bool) string {
	svc, err := c.Dynamic.Resource(serviceResource).Namespace(id.namespace).Get(ctx, id.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return serviceWarning(id, nil, preview)
	}
	if err != nil {
		secret.Logger(ctx).Debugf("Endpoints %s: looking up the Service of its name failed, so there is no "+
			"warning about the endpoints controller: %v", id, err)
		return ""
	}
	return serviceWarning(id, svc, preview)
}

// serviceWarning is selectorWarning's verdict for Endpoints id given the Service of its
// name, nil when there is none (no warning in a preview, see warnEndpoints).
func serviceWarning(id objectID, svc *unstructured.Unstructured, preview bool) string {
	if svc == nil && preview {
		return ""
	}
	if svc == nil {
		return fmt.Sprintf("Endpoints %s: there is no Service %s (yet), and the Kubernetes endpoints controller deletes "+
			"Endpoints that have no Service of the same name (when it starts, and when Endpoints of that name are "+
			"deleted); create a Service named %s without a selector (the same program may create it)",
			id, id, id.name)
	}
	selector, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector")
	typ, _, _ := unstructured.NestedString(svc.Object, "spec", "type")
	if len(selector) == 0 || typ == "ExternalName" {
		return ""
	}
	return fmt.Sprintf("Endpoints %s: Service %s has a selector, so the Kubernetes endpoints controller manages "+
		"its Endpoints and will overwrite or delete these; remove the Service's selector (the Endpoints of a "+
		"selectorless Service are yours, and are mirrored into EndpointSlices) or give the item another name",
		id, id)
}
