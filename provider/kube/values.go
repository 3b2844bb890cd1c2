package kube

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// fromObject turns an unstructured object into property values. The schema's property
// names are the Kubernetes JSON field names, so the two convert value by value
// (validate.Plain converts back).
func fromObject(obj map[string]any) property.Map {
	out := make(map[string]property.Value, len(obj))
	for k, v := range obj {
		out[k] = fromPlain(v)
	}
	return property.NewMap(out)
}

func fromPlain(v any) property.Value {
	switch x := v.(type) {
	case nil:
		return property.New(property.Null)
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
			arr[i] = fromPlain(e)
		}
		return property.New(arr)
	case map[string]any:
		return property.New(fromObject(x))
	default:
		return property.New(fmt.Sprint(x))
	}
}

// mapField reads a map-valued key of a property map; missing or non-map gives an empty map.
func mapField(m property.Map, key string) property.Map {
	if v, ok := m.GetOk(key); ok && v.IsMap() {
		return v.AsMap()
	}
	return property.Map{}
}

// stringField reads a known string key of a property map.
func stringField(m property.Map, key string) (string, bool) {
	v, ok := m.GetOk(key)
	if !ok || !v.IsString() {
		return "", false
	}
	return v.AsString(), true
}

// hasUnknowns tells whether any value in the map is not known yet (previews only).
func hasUnknowns(m property.Map) bool { return property.New(m).HasComputed() }
