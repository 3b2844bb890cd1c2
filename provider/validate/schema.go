package validate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// The schema walk: rules derived from schema.json, never written per field. It checks
// required properties, types, enum values and property names, applies defaults, and
// drops the fields listed in droppedFields. Kubernetes rules run afterwards on the
// normalized value (see endpointslice.go, endpoints_list.go, metadata.go).

// anyRef is the schema reference that accepts any value.
const anyRef = "pulumi.json#/Any"

// droppedFields lists, per type token, the properties that the server sets or
// discards, and why. Check removes them from the inputs with a warning (their values
// are not validated: they are never sent), and they are not part of a canonical form
// (see Form).
var droppedFields = map[string]map[string]string{
	objectMetaType:    serverOwnedObjectMeta,
	listMetaType:      serverOwnedListMeta,
	sliceEndpointType: ignoredSliceEndpoint,
}

// serverOptional lists, per type or resource token, the properties that the schema
// requires (as the interface specification does) but that the API server does not:
// leaving them out draws a warning, not a failure, so that Check agrees with the
// server. See endpointslice.go for the reasons.
var serverOptional = map[string]map[string]string{
	sliceResource: {"endpoints": sliceEndpointsMissing},
	forZoneType:   {"name": forZoneNameMissing},
}

// emptyIsUnset lists, per type token, the string properties whose empty value the
// API server reads as unset, applying the default: Check applies the schema default
// to them too, with a warning.
var emptyIsUnset = map[string]map[string]string{
	coreEndpointPortType: {"protocol": "the API server reads an empty protocol as unset and applies the default"},
}

// walker validates values against the schema.
type walker struct {
	*checker
	pkg *spec.Package
}

// resource walks the inputs of the resource token and returns them normalized.
func (w walker) resource(token string, inputs property.Map) property.Map {
	res, ok := w.pkg.Resources[token]
	if !ok {
		w.reject(path{}, "internal error: the provider's schema does not declare %s; please report this", token)
		return inputs
	}
	out, _ := w.object(path{}, token, res.InputProperties, res.RequiredInputs, inputs, false)
	return out
}

// object walks the properties of an object of the type (or resource) token.
func (w walker) object(p path, token string, props map[string]spec.Property, required []string, m property.Map, secret bool) (property.Map, bool) {
	out, changed := m, false

	drops := droppedFields[token]
	for _, k := range slices.Sorted(maps.Keys(drops)) {
		if v, ok := out.GetOk(k); ok {
			out, changed = out.Delete(k), true
			if !v.IsNull() {
				w.warn(p.key(k), "%s; the value is ignored and not sent to the API server", drops[k])
			}
		}
	}

	empties := emptyIsUnset[token]
	for _, k := range slices.Sorted(maps.Keys(empties)) {
		v := out.Get(k)
		if !v.IsString() || v.AsString() != "" {
			continue
		}
		if d, ok := withDefault(v, props[k].Default); ok {
			out, changed = out.Set(k, d), true
			w.warn(p.key(k), "%s, %s", empties[k], d.AsString())
		}
	}

	for k, v := range out.AllStable {
		prop, ok := props[k]
		if !ok {
			w.reject(p.key(k), "%s", unknownProperty(k, typeName(token), slices.Collect(maps.Keys(props))))
			continue
		}
		if nv, ch := w.value(p.key(k), prop, v, secret || v.Secret()); ch {
			out, changed = out.Set(k, nv), true
		}
	}

	for _, k := range required {
		if !out.Get(k).IsNull() {
			continue
		}
		if msg, ok := serverOptional[token][k]; ok {
			w.warn(p.key(k), "%s", msg)
			continue
		}
		w.reject(p.key(k), "required property %q of %s is missing", k, typeName(token))
	}

	for _, k := range slices.Sorted(maps.Keys(props)) {
		if props[k].Default == nil || !out.Get(k).IsNull() {
			continue
		}
		if v, ok := withDefault(out.Get(k), props[k].Default); ok {
			out, changed = out.Set(k, v), true
		}
	}
	return out, changed
}

// withDefault returns old (null, perhaps with markers) holding the schema default d.
func withDefault(old property.Value, d any) (property.Value, bool) {
	switch d := d.(type) {
	case string:
		return property.WithGoValue(old, d), true
	case float64:
		return property.WithGoValue(old, d), true
	case bool:
		return property.WithGoValue(old, d), true
	}
	return old, false
}

// value checks v against prop and returns it normalized, and whether it changed.
// Unknown and null values pass: the caller decides whether null is allowed.
func (w walker) value(p path, prop spec.Property, v property.Value, secret bool) (property.Value, bool) {
	if v.IsComputed() || v.IsNull() {
		return v, false
	}
	if prop.Ref != "" {
		return w.ref(p, prop.Ref, v, secret)
	}
	switch prop.Type {
	case "string":
		if !v.IsString() {
			w.reject(p, "must be a string (got %s)", spec.KindOf(v))
		}
	case "boolean":
		if !v.IsBool() {
			w.reject(p, "must be a boolean (got %s)", spec.KindOf(v))
		}
	case "number":
		if !v.IsNumber() {
			w.reject(p, "must be a number (got %s)", spec.KindOf(v))
		}
	case "integer":
		switch {
		case !v.IsNumber():
			w.reject(p, "must be an integer (got %s)", spec.KindOf(v))
		case v.AsNumber() != math.Trunc(v.AsNumber()):
			w.reject(p, "must be an integer (got %s)", showNumber(v.AsNumber(), secret))
		}
	case "array":
		if !v.IsArray() {
			w.reject(p, "must be a list (got %s)", spec.KindOf(v))
			return v, false
		}
		if prop.Items != nil {
			return w.elements(p, *prop.Items, v, secret)
		}
	case "object":
		if !v.IsMap() {
			w.reject(p, "must be an object (got %s)", spec.KindOf(v))
			return v, false
		}
		if prop.AdditionalProperties != nil {
			return w.mapValues(p, *prop.AdditionalProperties, v, secret)
		}
	}
	return v, false
}

// elements checks the elements of the array v against items and returns v
// normalized, and whether it changed. Null elements are rejected.
func (w walker) elements(p path, items spec.Property, v property.Value, secret bool) (property.Value, bool) {
	// The elements are copied only once one changes: most arrays pass unchanged.
	var elems []property.Value
	arr := v.AsArray()
	for i, e := range arr.All {
		if e.IsNull() {
			w.reject(p.index(i), "must be %s (got null)", expected(w.pkg, items))
			continue
		}
		if ne, ch := w.value(p.index(i), items, e, secret || e.Secret()); ch {
			if elems == nil {
				elems = arr.AsSlice()
			}
			elems[i] = ne
		}
	}
	if elems != nil {
		return property.WithGoValue(v, elems), true
	}
	return v, false
}

// mapValues checks the values of the map v against additional (the schema's
// additionalProperties) and returns v normalized, and whether it changed.
func (w walker) mapValues(p path, additional spec.Property, v property.Value, secret bool) (property.Value, bool) {
	out, changed := v.AsMap(), false
	for k, e := range v.AsMap().AllStable {
		if ne, ch := w.value(p.key(k), additional, e, secret || e.Secret()); ch {
			out, changed = out.Set(k, ne), true
		}
	}
	if changed {
		return property.WithGoValue(v, out), true
	}
	return v, false
}

// ref checks v against the type that ref names.
func (w walker) ref(p path, ref string, v property.Value, secret bool) (property.Value, bool) {
	token, ok := strings.CutPrefix(ref, "#/types/")
	if !ok {
		return v, false // pulumi.json#/Any and the like accept anything
	}
	t, ok := w.pkg.Types[token]
	if !ok {
		w.reject(p, "internal error: the provider's schema does not declare type %s; please report this", token)
		return v, false
	}
	if len(t.Enum) > 0 {
		w.enum(p, t, v, secret)
		return v, false
	}
	if !v.IsMap() {
		w.reject(p, "must be an object (%s; got %s)", typeName(token), spec.KindOf(v))
		return v, false
	}
	out, changed := w.object(p, token, t.Properties, t.Required, v.AsMap(), secret)
	if changed {
		return property.WithGoValue(v, out), true
	}
	return v, false
}

// enum checks v against the allowed values of the enum type t.
func (w walker) enum(p path, t spec.Type, v property.Value, secret bool) {
	allowed := make([]string, len(t.Enum))
	for i, e := range t.Enum {
		allowed[i] = fmt.Sprint(e.Value)
		if s, ok := e.Value.(string); ok {
			allowed[i] = strconv.Quote(s)
		}
		switch ev := e.Value.(type) {
		case string:
			if v.IsString() && v.AsString() == ev {
				return
			}
		case float64:
			if v.IsNumber() && v.AsNumber() == ev {
				return
			}
		case bool:
			if v.IsBool() && v.AsBool() == ev {
				return
			}
		}
	}
	got := spec.KindOf(v)
	if !secret && v.IsString() {
		got = strconv.Quote(v.AsString())
		for i, e := range t.Enum {
			if s, ok := e.Value.(string); ok && strings.EqualFold(s, v.AsString()) {
				got += "; values are case-sensitive: use " + allowed[i]
				break
			}
		}
	}
	w.reject(p, "must be one of %s (got %s)", strings.Join(allowed, ", "), got)
}

// expected describes what prop accepts, for messages.
func expected(pkg *spec.Package, prop spec.Property) string {
	if prop.Ref != "" {
		token, ok := strings.CutPrefix(prop.Ref, "#/types/")
		if !ok {
			return "a value"
		}
		if t, ok := pkg.Types[token]; ok && len(t.Enum) > 0 {
			return "one of the values of " + typeName(token)
		}
		return "an object (" + typeName(token) + ")"
	}
	switch prop.Type {
	case "string":
		return "a string"
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "boolean":
		return "a boolean"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return "a value"
}

func showNumber(f float64, secret bool) string {
	if secret {
		return secretShown
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// typeName is the short name of a type token: "EndpointPort" for
// "endpoints:discovery.k8s.io/v1:EndpointPort".
func typeName(token string) string {
	name := token[strings.LastIndexByte(token, ':')+1:]
	if token == sliceEndpointPortType {
		return name + " (slice form)"
	}
	if token == coreEndpointPortType {
		return name + " (core form)"
	}
	return name
}

// unknownProperty explains that name is not a property of typ, naming the closest
// of the known names.
func unknownProperty(name, typ string, known []string) string {
	slices.Sort(known)
	msg := fmt.Sprintf("unknown property %q of %s", name, typ)
	if len(known) == 0 {
		return msg + ", which has no properties"
	}
	best, closest := math.MaxInt, []string(nil)
	lower := strings.ToLower(name)
	for _, k := range known {
		d := editDistance(lower, strings.ToLower(k))
		switch {
		case d < best:
			best, closest = d, []string{k}
		case d == best:
			closest = append(closest, k)
		}
	}
	if best <= max(2, len(name)/3) {
		return msg + "; did you mean " + quoteList(closest, " or ") + "?"
	}
	return msg + "; known properties are " + quoteList(known, ", ")
}

func quoteList(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, sep)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
