package google

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	migrationcenter "google.golang.org/api/migrationcenter/v1alpha1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

func TestImportDataFileOutputs(t *testing.T) {
	t.Parallel()
	emptyInfo := map[string]any{"headers": map[string]any{}, "signedUri": "", "uriExpirationTime": ""}
	tests := []struct {
		name string
		in   *migrationcenter.ImportDataFile
		want map[string]any
	}{
		{"nil", nil, map[string]any{
			"createTime": "", "displayName": "", "format": "", "name": "", "state": "", "uploadFileInfo": emptyInfo,
		}},
		{"no upload info", &migrationcenter.ImportDataFile{Name: "n", State: "SOMETHING_NEW"}, map[string]any{
			"createTime": "", "displayName": "", "format": "", "name": "n", "state": "SOMETHING_NEW", "uploadFileInfo": emptyInfo,
		}},
		{"upload info without headers", &migrationcenter.ImportDataFile{UploadFileInfo: &migrationcenter.UploadFileInfo{SignedUri: "u"}}, map[string]any{
			"createTime": "", "displayName": "", "format": "", "name": "", "state": "",
			"uploadFileInfo": map[string]any{"headers": map[string]any{}, "signedUri": "u", "uriExpirationTime": ""},
		}},
		{"everything", &migrationcenter.ImportDataFile{
			CreateTime: "c", DisplayName: "d", Format: "f", Name: "n", State: "s",
			UploadFileInfo: &migrationcenter.UploadFileInfo{Headers: map[string]string{"h": "v"}, SignedUri: "u", UriExpirationTime: "e"},
		}, map[string]any{
			"createTime": "c", "displayName": "d", "format": "f", "name": "n", "state": "s",
			"uploadFileInfo": map[string]any{"headers": map[string]any{"h": "v"}, "signedUri": "u", "uriExpirationTime": "e"},
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, propertytest.MarkedMap(importDataFileOutputs(tt.in))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestPolicyOutputs(t *testing.T) {
	t.Parallel()
	empty := map[string]any{"auditConfigs": []any{}, "bindings": []any{}, "etag": "", "version": 0.0}
	noCondition := map[string]any{"expression": "", "title": "", "description": "", "location": ""}
	tests := []struct {
		name string
		in   *iamPolicy
		want map[string]any
	}{
		{"nil", nil, empty},
		{"empty", &iamPolicy{}, empty},
		{"null entries are dropped", &iamPolicy{Bindings: []*iamBinding{nil}, AuditConfigs: []*iamAuditConfig{nil, {AuditLogConfigs: []*iamAuditLogConfig{nil}}}},
			map[string]any{"bindings": []any{}, "etag": "", "version": 0.0, "auditConfigs": []any{
				map[string]any{"service": "", "auditLogConfigs": []any{}},
			}}},
		{"full", &iamPolicy{
			Version: 3, Etag: "BwX=",
			Bindings: []*iamBinding{
				{Role: "roles/a"},
				{Role: "roles/b", Members: []string{"user:x"}, Condition: &iamExpr{Expression: "e", Title: "t", Description: "d", Location: "l"}},
			},
			AuditConfigs: []*iamAuditConfig{{Service: "allServices", AuditLogConfigs: []*iamAuditLogConfig{{LogType: "NEW_TYPE"}}}},
		}, map[string]any{
			"version": 3.0, "etag": "BwX=",
			"bindings": []any{
				map[string]any{"role": "roles/a", "members": []any{}, "condition": noCondition},
				map[string]any{"role": "roles/b", "members": []any{"user:x"},
					"condition": map[string]any{"expression": "e", "title": "t", "description": "d", "location": "l"}},
			},
			"auditConfigs": []any{map[string]any{"service": "allServices", "auditLogConfigs": []any{
				map[string]any{"logType": "NEW_TYPE", "exemptedMembers": []any{}},
			}}},
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, propertytest.MarkedMap(policyOutputs(tt.in))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSchemaAgreement holds the hand-written argument lists and output shapes to
// schema.json: the same argument names, types and required set, and outputs with
// exactly the schema's property names and types at every level, even when the API
// answered nothing.
func TestSchemaAgreement(t *testing.T) {
	t.Parallel()
	pkg, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	fullPolicy := &iamPolicy{
		Bindings:     []*iamBinding{{Members: []string{"m"}, Condition: &iamExpr{}}},
		AuditConfigs: []*iamAuditConfig{{AuditLogConfigs: []*iamAuditLogConfig{{ExemptedMembers: []string{"m"}}}}},
	}
	fullFile := &migrationcenter.ImportDataFile{UploadFileInfo: &migrationcenter.UploadFileInfo{Headers: map[string]string{"h": "v"}}}
	tests := []struct {
		token   string
		args    []argSpec
		outputs []property.Map
	}{
		{spec.ImportDataFileToken, importDataFileArgs, []property.Map{importDataFileOutputs(nil), importDataFileOutputs(fullFile)}},
		{spec.ProxyConfigIamPolicyToken, proxyConfigIamPolicyArgs, []property.Map{policyOutputs(nil), policyOutputs(fullPolicy)}},
	}
	for _, tt := range tests {
		fn, ok := pkg.Functions[tt.token]
		if !ok || fn.Inputs == nil || fn.Outputs == nil {
			t.Errorf("schema.json lacks function %s or its inputs and outputs", tt.token)
			continue
		}
		var names, required []string
		for _, a := range tt.args {
			names = append(names, a.name)
			if a.required {
				required = append(required, a.name)
			}
			want := map[argKind]string{stringArg: "string", integerArg: "integer"}[a.kind]
			if got := fn.Inputs.Properties[a.name].Type; got != want {
				t.Errorf("%s argument %s: schema type %q, code reads %q", tt.token, a.name, got, want)
			}
		}
		if diff := cmp.Diff(sortedKeys(fn.Inputs.Properties), sorted(names)); diff != "" {
			t.Errorf("%s argument names (-schema +code):\n%s", tt.token, diff)
		}
		if diff := cmp.Diff(sorted(fn.Inputs.Required), sorted(required)); diff != "" {
			t.Errorf("%s required arguments (-schema +code):\n%s", tt.token, diff)
		}
		for _, out := range tt.outputs {
			checkObject(t, pkg, tt.token, fn.Outputs.Properties, out)
		}
	}
}

// checkObject checks that m has exactly the properties given, each of its type.
func checkObject(t *testing.T, pkg *spec.Package, path string, props map[string]spec.Property, m property.Map) {
	t.Helper()
	got := slices.Sorted(func(yield func(string) bool) {
		for k := range m.All {
			if !yield(k) {
				return
			}
		}
	})
	if diff := cmp.Diff(sortedKeys(props), got); diff != "" {
		t.Errorf("%s properties (-schema +outputs):\n%s", path, diff)
		return
	}
	for name, prop := range props {
		checkValue(t, pkg, path+"."+name, prop, m.Get(name))
	}
}

func checkValue(t *testing.T, pkg *spec.Package, path string, prop spec.Property, v property.Value) {
	t.Helper()
	switch {
	case prop.Ref != "":
		typ, ok := pkg.Types[strings.TrimPrefix(prop.Ref, "#/types/")]
		if !ok || !v.IsMap() {
			t.Errorf("%s: %s (known type %v) is not an object: %v", path, prop.Ref, ok, v)
			return
		}
		checkObject(t, pkg, path, typ.Properties, v.AsMap())
	case prop.Type == "array":
		if !v.IsArray() {
			t.Errorf("%s: want a list, got %v", path, v)
			return
		}
		for _, e := range v.AsArray().All {
			checkValue(t, pkg, path+"[]", *prop.Items, e)
		}
	case prop.Type == "object":
		if !v.IsMap() {
			t.Errorf("%s: want a map, got %v", path, v)
			return
		}
		for k, e := range v.AsMap().All {
			checkValue(t, pkg, path+"."+k, *prop.AdditionalProperties, e)
		}
	case prop.Type == "string" && !v.IsString(), prop.Type == "integer" && !v.IsNumber():
		t.Errorf("%s: want a %s, got %v", path, prop.Type, v)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return sorted(keys)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
