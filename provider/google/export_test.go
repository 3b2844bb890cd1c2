package google

import (
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// Plain turns a property value into plain Go values for go-cmp: maps, slices, strings,
// float64s, bools, nil. Secret values become Secret{...}; unknown values the string
// "<unknown>".
func Plain(v property.Value) any {
	var out any
	switch {
	case v.IsComputed():
		out = "<unknown>"
	case v.IsNull():
		out = nil
	case v.IsString():
		out = v.AsString()
	case v.IsNumber():
		out = v.AsNumber()
	case v.IsBool():
		out = v.AsBool()
	case v.IsArray():
		list := make([]any, 0, v.AsArray().Len())
		for _, e := range v.AsArray().All {
			list = append(list, Plain(e))
		}
		out = list
	case v.IsMap():
		out = PlainMap(v.AsMap())
	default:
		out = v.GoString()
	}
	if v.Secret() {
		return Secret{Value: out}
	}
	return out
}

// PlainMap is Plain for a map.
func PlainMap(m property.Map) map[string]any {
	out := make(map[string]any, m.Len())
	for k, e := range m.All {
		out[k] = Plain(e)
	}
	return out
}

// Secret marks a secret value in Plain's output.
type Secret struct{ Value any }
