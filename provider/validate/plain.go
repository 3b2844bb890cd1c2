package validate

import (
	"math"

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
