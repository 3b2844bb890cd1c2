// Package propertytest writes Pulumi property values as plain Go values, for tests:
// test inputs written as JSON become property values (FromJSON), and values under
// test become plain values that go-cmp compares and prints (Marked, Values).
//
// Plain values cannot say what a property value can, so markers stand in: the string
// "$unknown" is an unknown (computed) value, {"$secret": v} is the secret value v, and
// {"$dependencies": deps, "value": v} is v with its dependencies (Marked only).
package propertytest

import (
	"encoding/json"
	"fmt"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// ObjectFromJSON decodes a JSON document, with the markers, to a property map; ok is
// false when it is not an object (a fuzz target skips such documents).
func ObjectFromJSON(data []byte) (m property.Map, ok bool) {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return property.Map{}, false
	}
	p, err := FromJSON(v)
	if err != nil || !p.IsMap() {
		return property.Map{}, false
	}
	return p.AsMap(), true
}

// FromJSON converts a decoded JSON value (as encoding/json decodes into an any) to a
// property value, reading the markers.
func FromJSON(v any) (property.Value, error) {
	switch v := v.(type) {
	case string:
		if v == "$unknown" {
			return property.New(property.Computed), nil
		}
		return property.New(v), nil
	case map[string]any:
		if s, ok := v["$secret"]; ok && len(v) == 1 {
			p, err := FromJSON(s)
			return p.WithSecret(true), err
		}
		m := make(map[string]property.Value, len(v))
		for k, e := range v {
			p, err := FromJSON(e)
			if err != nil {
				return property.Value{}, err
			}
			m[k] = p
		}
		return property.New(m), nil
	case []any:
		a := make([]property.Value, len(v))
		for i, e := range v {
			p, err := FromJSON(e)
			if err != nil {
				return property.Value{}, err
			}
			a[i] = p
		}
		return property.New(a), nil
	}
	return property.Any(v)
}

// Marked returns v as plain values (maps, slices, strings, float64s, bools, nil), its
// markers spelled out.
func Marked(v property.Value) any {
	var out any
	switch {
	case v.IsComputed():
		out = "$unknown"
	case v.IsArray():
		a := []any{}
		for _, e := range v.AsArray().All {
			a = append(a, Marked(e))
		}
		out = a
	case v.IsMap():
		out = MarkedMap(v.AsMap())
	case v.IsNull():
		out = nil
	case v.IsString():
		out = v.AsString()
	case v.IsNumber():
		out = v.AsNumber()
	case v.IsBool():
		out = v.AsBool()
	default:
		out = fmt.Sprint(v)
	}
	if v.Secret() {
		out = map[string]any{"$secret": out}
	}
	if deps := v.Dependencies(); len(deps) > 0 {
		out = map[string]any{"$dependencies": fmt.Sprint(deps), "value": out}
	}
	return out
}

// MarkedMap is Marked for a map.
func MarkedMap(m property.Map) map[string]any {
	out := make(map[string]any, m.Len())
	for k, e := range m.All {
		out[k] = Marked(e)
	}
	return out
}

// IsSecret reports whether x, a value Marked returned, is a secret.
func IsSecret(x any) bool {
	m, ok := x.(map[string]any)
	if !ok || len(m) != 1 {
		return false
	}
	_, ok = m["$secret"]
	return ok
}

// Values lets go-cmp compare and print property values and maps, markers included.
var Values = cmp.Options{
	cmp.Transformer("property.Map", func(m property.Map) any { return Marked(property.New(m)) }),
	cmp.Transformer("property.Value", Marked),
}
