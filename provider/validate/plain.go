package validate

import (
	"fmt"
	"math"
	"slices"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// Plain turns a known property value into the plain JSON value an unstructured
// Kubernetes object holds: integral numbers become int64, secrets are unwrapped (the
// engine keeps them secret in state), and unknown values, which only previews carry,
// become nil, as do map entries holding them.
func Plain(v property.Value) any {
	switch {
	case v.IsNull(), v.IsComputed():
		return nil
	case v.IsString():
		return v.AsString()
	case v.IsBool():
		return v.AsBool()
	case v.IsNumber():
		n := v.AsNumber()
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n)
		}
		return n
	case v.IsArray():
		arr := v.AsArray()
		out := make([]any, 0, arr.Len())
		for _, e := range arr.All {
			out = append(out, Plain(e))
		}
		return out
	case v.IsMap():
		return PlainMap(v.AsMap())
	default:
		return nil
	}
}

// PlainMap is Plain for a map; entries whose value is null or unknown are left out.
func PlainMap(m property.Map) map[string]any {
	out := make(map[string]any, m.Len())
	for k, v := range m.All {
		if x := Plain(v); x != nil {
			out[k] = x
		}
	}
	return out
}

// Computed stands, in a decoded value (see Decode), for a value not known yet: only
// previews carry them.
type Computed struct{}

// Decode turns a property value into plain Go values, as Plain does, but keeps what
// Plain leaves out: null is nil, in maps too, and a value not known yet is Computed{}.
// Secrets are unwrapped: what of a resource's values is secret is read apart, by field
// (the provider's package secret), and put back on its answers.
func Decode(v property.Value) any {
	switch {
	case v.IsComputed():
		return Computed{}
	case v.IsArray():
		out := make([]any, 0, v.AsArray().Len())
		for _, e := range v.AsArray().All {
			out = append(out, Decode(e))
		}
		return out
	case v.IsMap():
		return DecodeMap(v.AsMap())
	}
	return Plain(v)
}

// DecodeMap is Decode for a map.
func DecodeMap(m property.Map) map[string]any {
	out := make(map[string]any, m.Len())
	for k, v := range m.All {
		out[k] = Decode(v)
	}
	return out
}

// Known is a decoded value as Plain gives it: map entries that are null or not known
// yet are left out, and a value not known yet is nil.
func Known(v any) any {
	switch x := v.(type) {
	case Computed:
		return nil
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, Known(e))
		}
		return out
	case map[string]any:
		return KnownMap(x)
	}
	return v
}

// KnownMap is Known for a map.
func KnownMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if x := Known(v); x != nil {
			out[k] = x
		}
	}
	return out
}

// HasComputed tells whether a decoded value holds a value not known yet.
func HasComputed(v any) bool {
	switch x := v.(type) {
	case Computed:
		return true
	case []any:
		return slices.ContainsFunc(x, HasComputed)
	case map[string]any:
		for _, e := range x {
			if HasComputed(e) {
				return true
			}
		}
	}
	return false
}

// Encode turns a plain or decoded value back into a property value (numbers are
// float64, Computed{} is unknown), with no secret in it (see Decode).
func Encode(v any) property.Value {
	switch x := v.(type) {
	case nil:
		return property.New(property.Null)
	case Computed:
		return property.New(property.Computed)
	case string:
		return property.New(x)
	case bool:
		return property.New(x)
	case int64:
		return property.New(float64(x))
	case int:
		return property.New(float64(x))
	case int32:
		return property.New(float64(x))
	case float64:
		return property.New(x)
	case []any:
		arr := make([]property.Value, len(x))
		for i, e := range x {
			arr[i] = Encode(e)
		}
		return property.New(arr)
	case map[string]any:
		return property.New(EncodeMap(x))
	default:
		return property.New(fmt.Sprint(x))
	}
}

// EncodeMap is Encode for a map.
func EncodeMap(m map[string]any) property.Map {
	out := make(map[string]property.Value, len(m))
	for k, e := range m {
		out[k] = Encode(e)
	}
	return property.NewMap(out)
}
