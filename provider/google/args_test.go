package google

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

func TestParseArgs(t *testing.T) {
	t.Parallel()
	specs := []argSpec{
		{name: "id", kind: stringArg, required: true, id: true},
		{name: "label", kind: stringArg},
		{name: "count", kind: integerArg},
	}
	const takes = "f takes id, label (optional), count (optional)"
	tests := []struct {
		name         string
		in           map[string]property.Value
		wantStrings  map[string]string
		wantInts     map[string]int64
		wantUnknown  bool
		wantFailures []p.CheckFailure
	}{
		{
			name:        "valid",
			in:          map[string]property.Value{"id": property.New("a b"), "label": property.New("x/y"), "count": property.New(3.0)},
			wantStrings: map[string]string{"id": "a b", "label": "x/y"},
			wantInts:    map[string]int64{"count": 3},
		},
		{
			name:        "null optional values are absent",
			in:          map[string]property.Value{"id": property.New("a"), "label": property.New(property.Null), "count": property.New(property.Null)},
			wantStrings: map[string]string{"id": "a"},
			wantInts:    map[string]int64{},
		},
		{
			name:        "secret values are read",
			in:          map[string]property.Value{"id": property.New("a").WithSecret(true), "count": property.New(0.0).WithSecret(true)},
			wantStrings: map[string]string{"id": "a"},
			wantInts:    map[string]int64{"count": 0},
		},
		{
			name:        "unknown values are not checked",
			in:          map[string]property.Value{"id": property.New(property.Computed), "count": property.New(property.Computed)},
			wantStrings: map[string]string{},
			wantInts:    map[string]int64{},
			wantUnknown: true,
		},
		{
			name:        "an unknown required value is not missing",
			in:          map[string]property.Value{"id": property.New(property.Computed)},
			wantStrings: map[string]string{},
			wantInts:    map[string]int64{},
			wantUnknown: true,
		},
		{
			name:        "every kind of failure",
			in:          map[string]property.Value{"label": property.New(true), "count": property.New(2.5), "extra": property.New("x")},
			wantStrings: map[string]string{},
			wantInts:    map[string]int64{},
			wantFailures: []p.CheckFailure{
				{Property: "count", Reason: "count must be an integer, not 2.5"},
				{Property: "extra", Reason: `unknown argument "extra": ` + takes},
				{Property: "label", Reason: "label must be a string, not a boolean"},
				{Property: "id", Reason: "missing required argument id: " + takes},
			},
		},
		{
			name:         "integers out of range",
			in:           map[string]property.Value{"id": property.New("a"), "count": property.New(1e12)},
			wantStrings:  map[string]string{"id": "a"},
			wantInts:     map[string]int64{},
			wantFailures: []p.CheckFailure{{Property: "count", Reason: "count must be an integer, not 1e+12"}},
		},
		{
			name:         "lists are not strings",
			in:           map[string]property.Value{"id": property.New([]property.Value{property.New("a")})},
			wantStrings:  map[string]string{},
			wantInts:     map[string]int64{},
			wantFailures: []p.CheckFailure{{Property: "id", Reason: "id must be a string, not a list"}},
		},
		{
			name:         "IDs are single path segments",
			in:           map[string]property.Value{"id": property.New("a/b")},
			wantStrings:  map[string]string{},
			wantInts:     map[string]int64{},
			wantFailures: []p.CheckFailure{{Property: "id", Reason: `id must be a single ID, not a path: "a/b" contains "/"`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, failures := parseArgs("f", property.NewMap(tt.in), specs)
			if diff := cmp.Diff(tt.wantFailures, failures); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStrings, got.strings); diff != "" {
				t.Errorf("strings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantInts, got.ints); diff != "" {
				t.Errorf("ints (-want +got):\n%s", diff)
			}
			if got.unknown != tt.wantUnknown {
				t.Errorf("unknown = %v, want %v", got.unknown, tt.wantUnknown)
			}
		})
	}
}

func TestCheckID(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"a":           "",
		"a b?c#d%e:f": "",
		"...":         "",
		"":            "must not be empty",
		"a/b":         `must be a single ID, not a path: "a/b" contains "/"`,
		"/":           `must be a single ID, not a path: "/" contains "/"`,
		".":           `must be an ID, not "."`,
		"..":          `must be an ID, not ".."`,
	}
	for id, want := range tests {
		if got := checkID(id); got != want {
			t.Errorf("checkID(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestProjectOf(t *testing.T) {
	t.Parallel()
	given := func(project property.Value) args {
		a, _ := parseArgs("f", property.NewMap(map[string]property.Value{"project": project}), importDataFileArgs)
		return a
	}
	none, _ := parseArgs("f", property.Map{}, importDataFileArgs)
	tests := []struct {
		name       string
		a          args
		configured string
		want       string
		wantFail   string
	}{
		{"argument wins", given(property.New("arg")), "cfg", "arg", ""},
		{"configuration is the default", none, "cfg", "cfg", ""},
		{"neither", none, "", "", "project"},
		{"a bad configured project", none, "a/b", "", "project"},
		{"an unknown argument needs no default", given(property.New(property.Computed)), "", "", ""},
		{"an invalid argument is reported once, by parseArgs", given(property.New("a/b")), "", "", ""},
	}
	for _, tt := range tests {
		got, failure := projectOf("f", tt.a, tt.configured)
		if got != tt.want {
			t.Errorf("%s: project = %q, want %q", tt.name, got, tt.want)
		}
		switch {
		case tt.wantFail == "" && failure != nil:
			t.Errorf("%s: unexpected failure %v", tt.name, failure)
		case tt.wantFail != "" && (failure == nil || failure.Property != tt.wantFail):
			t.Errorf("%s: failure = %v, want one on %s", tt.name, failure, tt.wantFail)
		}
	}
}

func TestSecretArgumentsMarkResults(t *testing.T) {
	t.Parallel()
	plainArgs := property.NewMap(map[string]property.Value{"a": property.New("x")})
	secretArgs := property.NewMap(map[string]property.Value{"a": property.New("x"), "b": property.New("y").WithSecret(true)})
	result := property.NewMap(map[string]property.Value{"out": property.New("v"), "list": property.New([]property.Value{})})

	if anySecret(plainArgs) {
		t.Error("anySecret of plain arguments = true")
	}
	if !anySecret(secretArgs) {
		t.Error("anySecret of a secret argument = false")
	}
	for k, v := range withSecret(result, true).All {
		if !v.Secret() {
			t.Errorf("withSecret(true): %s is not secret", k)
		}
	}
	for k, v := range withSecret(result, false).All {
		if v.Secret() {
			t.Errorf("withSecret(false): %s is secret", k)
		}
	}
}
