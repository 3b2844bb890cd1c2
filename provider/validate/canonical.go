package validate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// Canonical forms: one per kind, shared by Check, Read and Diff. Two values that the
// API server stores as the same object have the same canonical form, so nothing the
// server fills in or normalises shows as a change:
//
//   - null, an empty list and an empty map are the same as leaving the property out
//     (the server answers `ports: null`, `conditions: {}`, and omits empty Endpoints
//     subsets and address lists);
//   - a property holding its schema default is the same as leaving it out: the
//     server defaults `protocol` to TCP on both kinds' ports and a slice port's `name`
//     to "" (SetDefaults_EndpointPort in discovery/v1, SetDefaults_Endpoints in core/v1);
//   - an empty string where the API type has a plain (non-pointer) string, which it
//     omits when empty or stores as "" (Endpoints port names and address hostnames,
//     object references, metadata names, a zone hint's name) is the same as leaving
//     it out;
//   - fields the server owns (uid, resourceVersion, managedFields, ...) and fields the
//     v1 API discards (an endpoint's deprecatedTopology) are not part of the form;
//   - Endpoints subsets are a set of (address, port, ready) facts, as the Endpoints
//     API defines them: their order, their packing into subsets, and the order of
//     addresses and ports within a subset do not matter (Canonical repacks them into
//     one subset per port, addresses sorted).
//
// Everything else is compared as it is, in order: EndpointSlice lists are atomic and
// the server keeps them as written.

// omitEmpty are, per schema type, the string properties whose empty value the API
// type does not tell from leaving them out.
var omitEmpty = map[string][]string{
	"endpoints:core/v1:EndpointAddress": {"hostname"},
	coreEndpointPortType:                {"name"},
	"endpoints:core/v1:ObjectReference": {
		"apiVersion", "fieldPath", "kind", "name", "namespace", "resourceVersion", "uid",
	},
	objectMetaType: {"name", "generateName", "namespace"},
	forZoneType:    {"name"},
}

// Form reduces one kind's values to their canonical form (see above). Its values are
// decoded (see Decode): a resource's inputs and state as the provider's lifecycles
// hold them, secrets unwrapped (a secret compares by its value), and Computed{} for
// what a preview does not know yet. Stripped keeps the order of every list, for
// showing a live value in the shape users write it; Canonical also puts sets in order,
// for comparing.
type Form struct {
	token string // the resource or type token whose properties the form knows
	sets  map[string]func([]any) []any
}

// The forms: an EndpointSlice's inputs, one v1 Endpoints (an EndpointsList item), an
// EndpointsList's inputs (its items are a set, identified by namespace and name), and
// object metadata.
var (
	EndpointSliceForm = Form{token: sliceResource}
	EndpointsForm     = Form{token: endpointsType, sets: map[string]func([]any) []any{
		"subsets": repackSubsets,
	}}
	EndpointsListForm = Form{token: endpointsListResource, sets: map[string]func([]any) []any{
		"items": canonicalItems,
	}}
	ObjectMetaForm = Form{token: objectMetaType}
)

// Stripped returns the value of the top-level property field with defaults, empty
// values and server-owned fields left out; order is kept. ok is false when nothing is
// left (the property is as good as absent).
func (f Form) Stripped(field string, v any) (any, bool) {
	prop, known := f.property(field)
	if !known {
		return v, v != nil
	}
	return strip(spec.MustLoad(), prop, v)
}

// Canonical returns the canonical form of the top-level property field: Stripped, with
// sets in order.
func (f Form) Canonical(field string, v any) (any, bool) {
	s, ok := f.Stripped(field, v)
	if list, isList := s.([]any); isList && ok && f.sets[field] != nil && !HasComputed(s) {
		s = f.sets[field](list)
	}
	return s, ok
}

// Object returns the canonical form of a whole object (or of a resource's inputs):
// every property in canonical form, absent ones left out. An object named by
// generateName is identified by that prefix: the name the server picked is left out.
func (f Form) Object(obj map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range obj {
		if c, ok := f.Canonical(k, v); ok {
			out[k] = c
		}
	}
	if meta, ok := out["metadata"].(map[string]any); ok {
		if _, generated := meta["generateName"]; generated {
			meta = maps.Clone(meta)
			delete(meta, "name")
			out["metadata"] = meta
		}
	}
	return out
}

// Same tells whether two values of the top-level property field are the same once
// canonical. A value not known yet is never the same as anything.
func (f Form) Same(field string, a, b any) bool {
	if HasComputed(a) || HasComputed(b) {
		return false
	}
	ca, okA := f.Canonical(field, a)
	cb, okB := f.Canonical(field, b)
	if okA != okB {
		return false
	}
	return !okA || sortKey(ca) == sortKey(cb)
}

// SameObject tells whether two objects (or two resources' inputs) are the same once
// canonical (see Object).
func (f Form) SameObject(a, b map[string]any) bool {
	return sortKey(f.Object(a)) == sortKey(f.Object(b))
}

func (f Form) property(field string) (spec.Property, bool) {
	pkg := spec.MustLoad()
	if r, ok := pkg.Resources[f.token]; ok {
		prop, ok := r.InputProperties[field]
		return prop, ok
	}
	prop, ok := pkg.Types[f.token].Properties[field]
	return prop, ok
}

// strip reduces v, a value of prop, as Stripped describes. Unknown values stay.
func strip(pkg *spec.Package, prop spec.Property, v any) (any, bool) {
	switch x := v.(type) {
	case Computed:
		return v, true
	case nil:
		return v, false
	case map[string]any:
		if prop.Ref != "" {
			token, _ := strings.CutPrefix(prop.Ref, "#/types/")
			if t, ok := pkg.Types[token]; ok && t.Type == "object" {
				return stripObject(pkg, token, t, x)
			}
			return v, true
		}
		return v, prop.Type != "object" || len(x) > 0
	case []any:
		if prop.Ref != "" || prop.Type != "array" {
			return v, true
		}
		if len(x) == 0 {
			return v, false
		}
		if prop.Items == nil {
			return v, true
		}
		elems := make([]any, 0, len(x))
		for _, e := range x {
			s, ok := strip(pkg, *prop.Items, e)
			if !ok {
				// An element with nothing left is still an element (an empty port).
				s = map[string]any{}
			}
			elems = append(elems, s)
		}
		return elems, true
	}
	return v, true
}

func stripObject(pkg *spec.Package, token string, t spec.Type, v map[string]any) (any, bool) {
	out := map[string]any{}
	for k, e := range v {
		if _, drop := droppedFields[token][k]; drop {
			continue
		}
		prop, known := t.Properties[k]
		if !known {
			out[k] = e
			continue
		}
		s, ok := strip(pkg, prop, e)
		if !ok || isDefault(token, k, prop, s) {
			continue
		}
		out[k] = s
	}
	if len(out) == 0 {
		return v, false
	}
	return out, true
}

// isDefault tells whether v is what the server reads the property k as when it is left
// out: its schema default, or an empty string the API type omits.
func isDefault(token, k string, prop spec.Property, v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	if d, ok := prop.Default.(string); ok && s == d {
		return true
	}
	return s == "" && slices.Contains(omitEmpty[token], k)
}

// repackSubsets turns stripped Endpoints subsets into their canonical packing: one
// subset per distinct port (and one for addresses offered with no port), its ready and
// not-ready addresses sorted. An address listed both ready and not ready for a port is
// ready, as the Endpoints API reads it.
func repackSubsets(subsets []any) []any {
	facts := subsetFacts{byPort: map[string]map[string]addressFact{}, ports: map[string]any{}}
	for _, ss := range subsets {
		subset, ok := ss.(map[string]any)
		if !ok {
			return subsets
		}
		facts.add(subset)
	}
	return facts.subsets()
}

// subsetFacts are the (address, port, ready) facts of Endpoints subsets.
type subsetFacts struct {
	byPort map[string]map[string]addressFact // port key -> address key -> fact
	ports  map[string]any                    // port key -> port ("" for no port)
}

// addressFact is an address offered for a port, ready or not.
type addressFact struct {
	addr  any
	ready bool
}

// add records the facts of one subset: each of its addresses for each of its ports.
func (f subsetFacts) add(subset map[string]any) {
	subsetPorts := []any{nil}
	if ps, ok := subset["ports"].([]any); ok && len(ps) > 0 {
		subsetPorts = ps
	}
	for _, list := range []struct {
		key   string
		ready bool
	}{{"addresses", true}, {"notReadyAddresses", false}} {
		addrs, ok := subset[list.key].([]any)
		if !ok {
			continue
		}
		for _, port := range subsetPorts {
			pk := ""
			if port != nil {
				pk = sortKey(port)
			}
			f.ports[pk] = port
			if f.byPort[pk] == nil {
				f.byPort[pk] = map[string]addressFact{}
			}
			for _, a := range addrs {
				ak := sortKey(a)
				if seen, ok := f.byPort[pk][ak]; !ok || !seen.ready {
					f.byPort[pk][ak] = addressFact{addr: a, ready: list.ready}
				}
			}
		}
	}
}

// subsets packs the facts into one subset per port, in port order, addresses sorted.
func (f subsetFacts) subsets() []any {
	subsets := make([]any, 0, len(f.byPort))
	for _, pk := range slices.Sorted(maps.Keys(f.byPort)) {
		var ready, notReady []any
		for _, ak := range slices.Sorted(maps.Keys(f.byPort[pk])) {
			if fact := f.byPort[pk][ak]; fact.ready {
				ready = append(ready, fact.addr)
			} else {
				notReady = append(notReady, fact.addr)
			}
		}
		subset := map[string]any{}
		if len(ready) > 0 {
			subset["addresses"] = ready
		}
		if len(notReady) > 0 {
			subset["notReadyAddresses"] = notReady
		}
		if pk != "" {
			subset["ports"] = []any{f.ports[pk]}
		}
		subsets = append(subsets, subset)
	}
	return subsets
}

// canonicalItems puts stripped EndpointsList items in canonical form, in a canonical
// order.
func canonicalItems(list []any) []any {
	items := make([]any, 0, len(list))
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			item = EndpointsForm.Object(m)
		}
		items = append(items, item)
	}
	slices.SortFunc(items, func(a, b any) int { return strings.Compare(sortKey(a), sortKey(b)) })
	return items
}

// sortKey is a stable text form of a known value, for ordering and comparing values.
func sortKey(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
