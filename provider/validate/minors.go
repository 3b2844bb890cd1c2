package validate

import (
	"fmt"
	"strings"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// The rules that differ by Kubernetes minor, in one place. Every other rule in this
// package is the same on every minor of the window. Each rule below names the API
// server's source that decides it (k8s.io/kubernetes, at the minors given).
//
// Check learns the minor from a [Server], and asks only when an input's verdict
// depends on it: an IP address in a non-standard form, or node hints. So a program of
// plain addresses never makes the provider ask its cluster's version.

// The window of Kubernetes minors that the provider supports: both ends are tested
// (tests/differential, tests/lifecycle), and a minor outside it is judged by the
// rules of the closer end.
const (
	OldestMinor = 32
	NewestMinor = 37
)

// Server is the API server that the checked inputs will be written to, as far as
// Check needs to know it.
type Server interface {
	// Version returns the server's Kubernetes minor (32 for 1.32) and the version it
	// reports ("v1.32.13"), or "" for the version when the minor is a default rather
	// than a server's answer. Check calls it at most once per validation, and only
	// for an input whose verdict differs by minor.
	Version() (minor int, version string)
}

// Minor is a Server of a given minor with no version of its own: the default that
// Check applies where the cluster is not known (render mode, or a preview whose
// kubeconfig is not known yet), and what tests name.
type Minor int

// Version returns m and "".
func (m Minor) Version() (int, string) { return int(m), "" }

// Newest is the default Server: the newest minor of the window.
const Newest = Minor(NewestMinor)

// server is the Server of one validation, asked at most once.
type server struct {
	once    sync.Once
	s       Server
	minor   int
	version string
}

func newServer(s Server) *server {
	if s == nil {
		s = Newest
	}
	return &server{s: s}
}

// rulesMinor returns the minor whose rules apply: the server's, brought into the
// window. A nil server is Newest.
func (s *server) rulesMinor() int {
	if s == nil {
		return NewestMinor
	}
	s.once.Do(func() {
		s.minor, s.version = s.s.Version()
		if s.version == "" {
			s.version = fmt.Sprintf("1.%d", s.minor)
		}
	})
	return min(max(s.minor, OldestMinor), NewestMinor)
}

// named says which server a reason is about: "Kubernetes v1.32.13" for a server's
// answer, "Kubernetes 1.37" for a default.
func (s *server) named() string {
	if s == nil {
		return fmt.Sprintf("Kubernetes 1.%d", NewestMinor)
	}
	s.rulesMinor()
	return "Kubernetes " + s.version
}

// strictLegacyIPs reports whether Endpoints' ip and IPv4 slices' addresses refuse
// IPv4 octets with leading zeros and IPv4-mapped IPv6 addresses (KEP-4858). They do
// when the StrictIPCIDRValidation feature gate is on: beta and on by default from
// 1.36 (pkg/features/kube_features.go), read by IsValidIPForLegacyField
// (pkg/apis/core/validation). 1.33 to 1.35 accept them with a warning; 1.32 and older
// accept them through IsValidIP and IsValidIPv4Address.
func (s *server) strictLegacyIPs() bool { return s.rulesMinor() >= 36 }

// canonicalIPv6Slices reports whether an IPv6 slice's addresses must be in RFC 5952
// canonical form: from 1.33 pkg/apis/discovery/validation checks them with
// validation.IsValidIP; 1.32's IsValidIPv6Address takes any IPv6 form.
func (s *server) canonicalIPv6Slices() bool { return s.rulesMinor() >= 33 }

// nodeHints says what the server does with an endpoint's hints.forNodes: keeps and
// validates them (1.34 and later: the PreferSameTrafficDistribution feature gate is
// on, GA in 1.35), or drops them, with the reason ("" when kept). 1.33 has the field
// behind the gate, off by default, and its registry strategy drops it on create
// (dropDisabledFieldsOnCreate in pkg/registry/discovery/endpointslice); 1.32 does not
// know the field and drops it as unknown.
func (s *server) nodeHints() (dropped string) {
	switch minor := s.rulesMinor(); {
	case minor >= 34:
		return ""
	case minor == 33:
		return fmt.Sprintf("%s drops node hints: its PreferSameTrafficDistribution feature gate is off by default "+
			"(on from Kubernetes 1.34), so they are left out of the slice", s.named())
	default:
		return fmt.Sprintf("%s does not know node hints (new in Kubernetes 1.33, on by default from 1.34) and drops "+
			"them, so they are left out of the slice", s.named())
	}
}

// keepsUnchanged reports whether an update keeps what the server would refuse in a
// slice's endpoints (an Endpoints object's subsets) when they are unchanged: from
// 1.33, ValidateEndpointSlice and ValidateEndpoints (pkg/apis/discovery/validation,
// pkg/apis/core/validation) drop those errors when the old object's are semantically
// equal, since an older minor accepted them. 1.32 judges every update as a create.
func (s *server) keepsUnchanged() bool { return s.rulesMinor() >= 33 }

// SliceUpdate is r for an update of a slice whose previous inputs are previous: where
// the server keeps unchanged endpoints (see keepsUnchanged) and the endpoints are as
// they were, their failures become warnings, as the server accepts the update. The
// server is asked only when there is such a failure.
func SliceUpdate(r Result, previous property.Map, srv Server) Result {
	return keptUnchanged(r, newServer(srv), func(p string) (property.Value, property.Value, bool) {
		if !under(p, "endpoints") {
			return property.Value{}, property.Value{}, false
		}
		return previous.Get("endpoints"), r.Inputs.Get("endpoints"), true
	})
}

// ListUpdate is SliceUpdate for the items of an EndpointsList: an item whose object
// (namespace and name; namespace defaulting to namespace) the previous inputs hold
// too, with the same subsets, keeps them.
func ListUpdate(r Result, previous property.Map, namespace string, srv Server) Result {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	key := func(item property.Value) (string, bool) {
		if !item.IsMap() || !item.AsMap().Get("metadata").IsMap() {
			return "", false
		}
		meta := item.AsMap().Get("metadata").AsMap()
		name, ns := meta.Get("name"), meta.Get("namespace")
		if !name.IsString() || name.AsString() == "" || !ns.IsNull() && !ns.IsString() {
			return "", false
		}
		if ns.IsString() && ns.AsString() != "" {
			return ns.AsString() + "/" + name.AsString(), true
		}
		return namespace + "/" + name.AsString(), true
	}
	before := map[string]property.Value{}
	if items := previous.Get("items"); items.IsArray() {
		for _, item := range items.AsArray().All {
			if k, ok := key(item); ok {
				before[k] = item.AsMap().Get("subsets")
			}
		}
	}
	items := r.Inputs.Get("items")
	return keptUnchanged(r, newServer(srv), func(p string) (property.Value, property.Value, bool) {
		if !items.IsArray() {
			return property.Value{}, property.Value{}, false
		}
		for i, item := range items.AsArray().All {
			if !under(p, fmt.Sprintf("items[%d].subsets", i)) {
				continue
			}
			k, ok := key(item)
			old, existed := before[k]
			if !ok || !existed {
				return property.Value{}, property.Value{}, false
			}
			return old, item.AsMap().Get("subsets"), true
		}
		return property.Value{}, property.Value{}, false
	})
}

// keptUnchanged turns into warnings the failures whose path part names an old and a
// new value that are equal, where the server keeps unchanged values.
func keptUnchanged(r Result, s *server, part func(path string) (old, cur property.Value, ok bool)) Result {
	var kept []Failure
	for _, f := range r.Failures {
		old, cur, ok := part(f.Path)
		if ok && !old.IsNull() && old.Equals(cur) && s.keepsUnchanged() {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: %s; %s keeps it in this update, as it is unchanged, "+
				"but refuses it in a change to it or in a new object", f.Path, f.Reason, s.named()))
			continue
		}
		kept = append(kept, f)
	}
	r.Failures = kept
	return r
}

// under reports whether the property path p is part or within it.
func under(p, part string) bool {
	rest, ok := strings.CutPrefix(p, part)
	return ok && (rest == "" || rest[0] == '[' || rest[0] == '.')
}
