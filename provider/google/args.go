package google

import (
	"fmt"
	"math"
	"slices"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// argKind is the schema type of a function argument.
type argKind int

const (
	stringArg argKind = iota
	integerArg
)

func (k argKind) String() string {
	if k == integerArg {
		return "an integer"
	}
	return "a string"
}

// argSpec describes one argument of a function, as schema.json declares it.
type argSpec struct {
	name     string
	kind     argKind
	required bool
	// id marks a string that becomes one segment of the request path.
	id bool
}

// args are a function's known, valid arguments.
type args struct {
	strings map[string]string
	ints    map[string]int64
	// unknown is set when a value is not known yet (a preview): the call is skipped.
	unknown bool
	// given names every argument passed with a non-null value, valid or not, known or not.
	given map[string]bool
}

// parseArgs checks the arguments of a function against its specs. It returns one
// failure per bad argument: an unknown name, a wrong type, a missing required value or
// an invalid identifier. Null values count as absent. Unknown values are not checked:
// they set args.unknown.
func parseArgs(function string, in property.Map, specs []argSpec) (args, []p.CheckFailure) {
	out := args{strings: map[string]string{}, ints: map[string]int64{}, given: map[string]bool{}}
	var failures []p.CheckFailure
	// reject records why the argument name is not accepted.
	reject := func(name, format string, a ...any) {
		failures = append(failures, p.CheckFailure{Property: name, Reason: fmt.Sprintf(format, a...)})
	}
	for name, v := range in.AllStable {
		i := slices.IndexFunc(specs, func(s argSpec) bool { return s.name == name })
		if i < 0 {
			reject(name, "unknown argument %q: %s takes %s", name, function, argNames(specs))
			continue
		}
		arg := specs[i]
		out.given[name] = !v.IsNull()
		switch {
		case v.IsComputed() || v.HasComputed():
			out.unknown = true
		case v.IsNull():
		case arg.kind == stringArg && !v.IsString():
			reject(name, "%s must be %s, not %s", name, arg.kind, spec.KindOf(v))
		case arg.kind == stringArg:
			s := v.AsString()
			if arg.id {
				if reason := checkID(s); reason != "" {
					reject(name, "%s %s", name, reason)
					continue
				}
			}
			out.strings[name] = s
		case !v.IsNumber():
			reject(name, "%s must be %s, not %s", name, arg.kind, spec.KindOf(v))
		case v.AsNumber() != math.Trunc(v.AsNumber()) || math.Abs(v.AsNumber()) > math.MaxInt32:
			reject(name, "%s must be %s, not %v", name, arg.kind, v.AsNumber())
		default:
			out.ints[name] = int64(v.AsNumber())
		}
	}
	for _, arg := range specs {
		if !arg.required {
			continue
		}
		if v, ok := in.GetOk(arg.name); !ok || v.IsNull() {
			reject(arg.name, "missing required argument %s: %s takes %s", arg.name, function, argNames(specs))
		}
	}
	return out, failures
}

// checkID returns why s cannot be one segment of a resource path, or "" if it can.
func checkID(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case strings.Contains(s, "/"):
		return fmt.Sprintf("must be a single ID, not a path: %q contains \"/\"", s)
	case s == "." || s == "..":
		return fmt.Sprintf("must be an ID, not %q", s)
	}
	return ""
}

// argNames lists the argument names of a function, the required ones marked.
func argNames(specs []argSpec) string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
		if !s.required {
			names[i] += " (optional)"
		}
	}
	return strings.Join(names, ", ")
}

// projectOf returns the project of a call: the argument, else the provider's project
// setting. The failure explains both ways of setting it. A project argument that is
// unknown, or invalid (parseArgs reports it), returns "" and no failure.
func projectOf(function string, a args, configured string) (string, *p.CheckFailure) {
	if a.given["project"] {
		return a.strings["project"], nil
	}
	if configured == "" {
		return "", &p.CheckFailure{Property: "project", Reason: fmt.Sprintf(
			"project is not set: pass project to %s, or set the provider's project configuration "+
				"(or one of the GOOGLE_PROJECT, GOOGLE_CLOUD_PROJECT, GCLOUD_PROJECT, CLOUDSDK_CORE_PROJECT environment variables)",
			function)}
	}
	if reason := checkID(configured); reason != "" {
		return "", &p.CheckFailure{Property: "project", Reason: "the provider's project setting " + reason}
	}
	return configured, nil
}

// anySecret reports whether any argument is secret, so the result must be too.
func anySecret(in property.Map) bool {
	for _, v := range in.All {
		if v.HasSecrets() {
			return true
		}
	}
	return false
}

// withSecret marks every value of m secret when secret is set.
func withSecret(m property.Map, secret bool) property.Map {
	if !secret {
		return m
	}
	out := make(map[string]property.Value, m.Len())
	for k, v := range m.All {
		out[k] = v.WithSecret(true)
	}
	return property.NewMap(out)
}
