package validate

import (
	"fmt"
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object metadata, as kube-apiserver validates it on create for EndpointSlice and
// Endpoints (ValidateObjectMeta with NameIsDNSSubdomain, plus the finalizer rule of
// the core API).

const (
	objectMetaType = "endpoints:meta/v1:ObjectMeta"
	listMetaType   = "endpoints:meta/v1:ListMeta"
)

// serverOwned are the ObjectMeta fields that the server sets, clears or rejects on
// create; Check drops them, and they are not part of an object's canonical form.
// setOnCreate marks those the server fills in on every create, which a preview that
// cannot ask the server leaves unknown.
var serverOwned = []struct {
	field, reason string
	setOnCreate   bool
}{
	{"uid", "the API server sets it when it creates the object", true},
	{"resourceVersion", "the API server sets it (a create must not carry one)", true},
	{"creationTimestamp", "the API server sets it when it creates the object", true},
	{"generation", "the API server sets it", true},
	{"deletionTimestamp", "the API server sets it when deletion is requested", false},
	{"deletionGracePeriodSeconds", "the API server sets it when deletion is requested", false},
	{"selfLink", "deprecated and no longer populated", false},
	{"managedFields", "the API server's field management maintains it", false},
	{"clusterName", "no longer part of the Kubernetes API (removed in 1.25)", false},
}

// serverOwnedObjectMeta maps each server-owned field to the reason Check drops it.
var serverOwnedObjectMeta = func() map[string]string {
	m := make(map[string]string, len(serverOwned))
	for _, f := range serverOwned {
		m[f.field] = f.reason
	}
	return m
}()

// ServerSetOnCreate returns the metadata fields the server fills in on every create.
func ServerSetOnCreate() []string {
	var out []string
	for _, f := range serverOwned {
		if f.setOnCreate {
			out = append(out, f.field)
		}
	}
	return out
}

// serverOwnedListMeta are the ListMeta fields, all set by the server on list
// responses; an EndpointsList manages its items, so Check drops them.
var serverOwnedListMeta = map[string]string{
	"continue":           "a paging token that the API server returns with lists",
	"remainingItemCount": "the API server sets it on paged lists",
	"resourceVersion":    "the API server sets it on lists",
	"selfLink":           "deprecated and no longer populated",
}

// maxAnnotationsBytes is the limit on the total size of an object's annotations
// (keys plus values).
const maxAnnotationsBytes = apimachineryvalidation.TotalAnnotationSizeLimitB

// standardFinalizers are the finalizer names without a '/' that the core API
// accepts.
var standardFinalizers = []string{"kubernetes", "orphan", "foregroundDeletion"}

// objectMeta checks the metadata n of an EndpointSlice or of an Endpoints item.
func (c *checker) objectMeta(n node) {
	name, generateName := n.get("name"), n.get("generateName")
	if s, ok := name.str(); ok {
		switch {
		case s == "":
			if g, ok := generateName.str(); ok && g == "" || generateName.absent() {
				c.reject(name.path, "must not be empty: set a name, or leave it out to have one generated")
			}
		case !isDNSSubdomain(s):
			c.reject(name.path, "%s (got %s)", dnsSubdomainRule, name.quote(s))
		}
	}
	if s, ok := generateName.str(); ok && s != "" {
		n, named := name.str()
		nameless := name.absent() || named && n == ""
		switch {
		case !isNamePrefix(s):
			c.reject(generateName.path, "%s (got %s)", dnsSubdomainPrefixRule, generateName.quote(s))
		case nameless && !isDNSSubdomain(ServerGeneratedName(s)):
			c.reject(generateName.path, "%s (got %s, from which the server would generate names such as %q)",
				generatedNameRule, generateName.quote(s), ServerGeneratedName(s))
		}
	}
	if s, ok := n.get("namespace").str(); ok && s != "" {
		c.checkDNSLabel(n.get("namespace"))
	}
	c.labels(n.get("labels"))
	c.annotations(n.get("annotations"))
	c.finalizers(n.get("finalizers"))
	c.ownerReferences(n.get("ownerReferences"))
}

func (c *checker) labels(n node) {
	entries, _ := n.entries()
	for _, e := range entries {
		if !isQualifiedName(e.key) {
			c.reject(e.path, "label key %s", qualifiedNameRule)
		}
		if s, ok := e.str(); ok && !isLabelValue(s) {
			c.reject(e.path, "label value %s (got %s)", labelValueRule, e.quote(s))
		}
	}
}

func (c *checker) annotations(n node) {
	entries, _ := n.entries()
	size, sizeKnown := 0, true
	for _, e := range entries {
		// The server compares keys case-insensitively.
		if !isQualifiedName(strings.ToLower(e.key)) {
			c.reject(e.path, "annotation key %s; letter case does not matter", qualifiedNameRule)
		}
		size += len(e.key)
		if s, ok := e.str(); ok {
			size += len(s)
		} else if e.unknown() {
			sizeKnown = false
		}
	}
	added := c.written.annotationsSize()
	if size+added > maxAnnotationsBytes {
		c.reject(n.path, "annotations may total at most 256 KiB (%d bytes of keys and values; got %d%s%s)",
			maxAnnotationsBytes, size, map[bool]string{true: "", false: " or more"}[sizeKnown], addedNote(added))
	}
}

// annotationsSize is the bytes of keys and values that every write adds to an
// object's annotations.
func (w Written) annotationsSize() int {
	n := 0
	for k, v := range w.Annotations {
		n += len(k) + len(v)
	}
	return n
}

// addedNote says what the provider's writes add to the annotations' total, if anything.
func addedNote(added int) string {
	if added == 0 {
		return ""
	}
	return fmt.Sprintf(", plus %d that the provider adds to every object it writes (the resource's URN)", added)
}

func (c *checker) finalizers(n node) {
	items, _ := n.items()
	orphan, foreground := false, false
	for _, f := range items {
		s, ok := f.str()
		if !ok {
			continue
		}
		switch {
		case !isQualifiedName(s):
			c.reject(f.path, "finalizer %s (got %s)", qualifiedNameRule, f.quote(s))
		case !strings.Contains(s, "/") && !isStandardFinalizer(s):
			c.reject(f.path, "finalizer %s has no domain prefix: only the standard finalizers kubernetes, orphan and "+
				"foregroundDeletion may go without one; use a name like example.com/my-finalizer", f.quote(s))
		}
		orphan = orphan || s == "orphan"
		foreground = foreground || s == "foregroundDeletion"
	}
	if orphan && foreground {
		c.reject(n.path, "the finalizers orphan and foregroundDeletion cannot both be set")
	}
}

func isStandardFinalizer(s string) bool {
	for _, f := range standardFinalizers {
		if s == f {
			return true
		}
	}
	return false
}

func (c *checker) ownerReferences(n node) {
	refs, _ := n.items()
	controller := -1
	for i, ref := range refs {
		apiVersion, kind := ref.get("apiVersion"), ref.get("kind")
		av, avKnown := apiVersion.str()
		k, kKnown := kind.str()
		if avKnown {
			gv, err := schema.ParseGroupVersion(av)
			if err != nil || gv.Version == "" {
				c.reject(apiVersion.path, "must be an API version, <group>/<version> or <version> for the core group "+
					"(e.g. apps/v1 or v1; got %s)", apiVersion.quote(av))
			} else if kKnown && gv.Group == "" && gv.Version == "v1" && k == "Event" {
				c.reject(kind.path, "v1 Event objects cannot be owners")
			}
		}
		for _, field := range []string{"kind", "name", "uid"} {
			if s, ok := ref.get(field).str(); ok && s == "" {
				c.reject(ref.get(field).path, "must not be empty")
			}
		}
		if b, ok := ref.get("controller").boolean(); ok && b {
			if controller >= 0 {
				c.reject(ref.get("controller").path, "only one owner reference may be the managing controller, "+
					"and ownerReferences[%d] already is", controller)
			} else {
				controller = i
			}
		}
	}
}
