package differential_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// schemaOnly lists the schema properties that the Kubernetes types do not have, and
// why that is fine.
var schemaOnly = map[string]string{
	"ObjectMeta.clusterName": "removed from the Kubernetes API in 1.25; Check drops it",
}

// TestSchemaMatchesKubernetesTypes checks that every property of the two Kubernetes
// resources in schema.json exists, under the same name and with a compatible type,
// in the Go types of k8s.io/api: the differential test and the provider convert
// inputs to those types by JSON, so a property that they cannot hold would be lost or
// rejected.
func TestSchemaMatchesKubernetesTypes(t *testing.T) {
	t.Parallel()
	pkg := spec.MustLoad()
	tests := []struct {
		token  string
		goType reflect.Type
	}{
		{spec.EndpointSliceToken, reflect.TypeFor[discoveryv1.EndpointSlice]()},
		{spec.EndpointsListToken, reflect.TypeFor[corev1.EndpointsList]()},
	}
	for _, tt := range tests {
		t.Run(tt.token, func(t *testing.T) {
			t.Parallel()
			res, ok := pkg.Resources[tt.token]
			if !ok {
				t.Fatalf("schema.json does not declare %s", tt.token)
			}
			for _, problem := range schemaProblems(pkg, tt.token, res.InputProperties, tt.goType) {
				t.Error(problem)
			}
		})
	}
}

// TestSchemaProblemsFound checks that the comparison finds what it is for.
func TestSchemaProblemsFound(t *testing.T) {
	t.Parallel()
	pkg := &spec.Package{Types: map[string]spec.Type{
		"test:core/v1:EndpointAddress": {Type: "object", Properties: map[string]spec.Property{
			"ip":       {Type: "string"},
			"hostname": {Type: "integer"},
			"podName":  {Type: "string"},
			"nodeName": {Ref: "#/types/test:core/v1:Missing"},
		}},
	}}
	props := map[string]spec.Property{
		"subsets":  {Type: "array", Items: &spec.Property{Type: "object", AdditionalProperties: &spec.Property{Type: "string"}}},
		"metadata": {Ref: "#/types/test:core/v1:EndpointAddress"},
	}
	got := schemaProblems(pkg, "test:core/v1:Endpoints", props, reflect.TypeFor[struct {
		Metadata corev1.EndpointAddress  `json:"metadata"`
		Subsets  []corev1.EndpointSubset `json:"subsets"`
	}]())
	want := []string{
		"EndpointAddress.hostname: integer, but Go type string",
		"EndpointAddress.nodeName: schema.json does not declare test:core/v1:Missing",
		`EndpointAddress.podName: v1.EndpointAddress has no JSON field "podName"`,
		"Endpoints.subsets[]: map, but Go type v1.EndpointSubset",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// schemaProblems compares the properties of the schema object token with the Go
// struct goType.
func schemaProblems(pkg *spec.Package, token string, props map[string]spec.Property, goType reflect.Type) []string {
	c := &typeChecker{pkg: pkg, seen: map[string]bool{}}
	c.object(token[strings.LastIndexByte(token, ':')+1:], props, goType)
	slices.Sort(c.problems)
	return c.problems
}

type typeChecker struct {
	pkg      *spec.Package
	seen     map[string]bool
	problems []string
}

func (c *typeChecker) Errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// object checks the properties of a schema object against the struct goType.
func (c *typeChecker) object(name string, props map[string]spec.Property, goType reflect.Type) {
	fields := jsonFields(goType)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		where := name + "." + k
		f, ok := fields[k]
		if !ok {
			if _, fine := schemaOnly[where]; !fine {
				c.Errorf("%s: %s has no JSON field %q", where, goType, k)
			}
			continue
		}
		c.property(where, props[k], f)
	}
}

// property checks one schema property against the Go type of its field.
func (c *typeChecker) property(where string, prop spec.Property, goType reflect.Type) {
	for goType.Kind() == reflect.Pointer {
		goType = goType.Elem()
	}
	if prop.Ref != "" {
		token, ok := strings.CutPrefix(prop.Ref, "#/types/")
		if !ok {
			return // pulumi.json#/Any holds anything
		}
		typ, ok := c.pkg.Types[token]
		if !ok {
			c.Errorf("%s: schema.json does not declare %s", where, token)
			return
		}
		if len(typ.Enum) > 0 {
			if goType.Kind() != reflect.String {
				c.Errorf("%s: enum %s, but Go type %s", where, token, goType)
			}
			return
		}
		if goType.Kind() != reflect.Struct {
			c.Errorf("%s: object %s, but Go type %s", where, token, goType)
			return
		}
		if c.seen[token] {
			return
		}
		c.seen[token] = true
		c.object(token[strings.LastIndexByte(token, ':')+1:], typ.Properties, goType)
		return
	}
	switch prop.Type {
	case "string":
		if goType.Kind() != reflect.String && goType != reflect.TypeFor[metav1.Time]() {
			c.Errorf("%s: string, but Go type %s", where, goType)
		}
	case "integer":
		switch goType.Kind() {
		case reflect.Int, reflect.Int32, reflect.Int64:
		default:
			c.Errorf("%s: integer, but Go type %s", where, goType)
		}
	case "boolean":
		if goType.Kind() != reflect.Bool {
			c.Errorf("%s: boolean, but Go type %s", where, goType)
		}
	case "array":
		if goType.Kind() != reflect.Slice || prop.Items == nil {
			c.Errorf("%s: array, but Go type %s", where, goType)
			return
		}
		c.property(where+"[]", *prop.Items, goType.Elem())
	case "object":
		if goType.Kind() != reflect.Map || prop.AdditionalProperties == nil {
			c.Errorf("%s: map, but Go type %s", where, goType)
			return
		}
		c.property(where+"{}", *prop.AdditionalProperties, goType.Elem())
	default:
		c.Errorf("%s: unexpected schema type %q", where, prop.Type)
	}
}

// jsonFields maps the JSON names of a struct's fields (inline ones included) to
// their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
