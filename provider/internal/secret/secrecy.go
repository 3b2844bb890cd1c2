package secret

import (
	"maps"
	"slices"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// Shown stands for a secret value in text, as the Pulumi CLI shows secrets.
const Shown = "[secret]"

// Secrecy is what of a resource's inputs or state is secret (see the package doc): its
// secret scopes, by name ("endpoints", "metadata.labels", "metadata" for all of the
// metadata), and its secret strings. The zero Secrecy holds nothing secret.
type Secrecy struct {
	scopes map[string]bool
	// all says that every value is secret: an EndpointsList item whose items are.
	all    bool
	values map[string]bool
}

// metadata is the field whose keys are scopes of their own.
const metadata = "metadata"

// Of is the secrecy of m, a resource's inputs or state as the engine sent them.
func Of(m property.Map) Secrecy {
	s := Secrecy{scopes: map[string]bool{}, values: map[string]bool{}}
	for k, v := range m.All {
		if k == metadata && !v.Secret() && v.IsMap() {
			for mk, mv := range v.AsMap().All {
				if holdsSecret(mv) {
					s.scopes[metadata+"."+mk] = true
				}
			}
		} else if holdsSecret(v) {
			s.scopes[k] = true
		}
		collect(v, false, s.values)
	}
	return s
}

// Values are the secret strings of m (every string under a secret value, at any
// depth), for text (see With).
func Values(ms ...property.Map) []string {
	out := map[string]bool{}
	for _, m := range ms {
		collect(property.New(m), false, out)
	}
	return keys(out)
}

// holdsSecret tells whether v or a value within it is secret.
func holdsSecret(v property.Value) bool {
	switch {
	case v.Secret():
		return true
	case v.IsMap():
		for _, e := range v.AsMap().All {
			if holdsSecret(e) {
				return true
			}
		}
	case v.IsArray():
		for _, e := range v.AsArray().All {
			if holdsSecret(e) {
				return true
			}
		}
	}
	return false
}

// collect adds to out the strings of v that are secret (under is true within a
// secret); the empty string says nothing and is left out.
func collect(v property.Value, under bool, out map[string]bool) {
	under = under || v.Secret()
	switch {
	case v.IsString() && under && v.AsString() != "":
		out[v.AsString()] = true
	case v.IsMap():
		for _, e := range v.AsMap().All {
			collect(e, under, out)
		}
	case v.IsArray():
		for _, e := range v.AsArray().All {
			collect(e, under, out)
		}
	}
}

// Union is what s or o holds secret.
func (s Secrecy) Union(o Secrecy) Secrecy {
	out := Secrecy{scopes: maps.Clone(s.scopes), all: s.all || o.all, values: maps.Clone(s.values)}
	if out.scopes == nil {
		out.scopes = map[string]bool{}
	}
	if out.values == nil {
		out.values = map[string]bool{}
	}
	maps.Copy(out.scopes, o.scopes)
	maps.Copy(out.values, o.values)
	return out
}

// Within is the secrecy of each element of the field f of s's resource (an
// EndpointsList's items): every value of an element is secret when the field is, and
// the secret strings are s's.
func (s Secrecy) Within(f string) Secrecy {
	return Secrecy{all: s.all || s.scopes[f], values: s.values}
}

// Whole is the secrecy of an answer that every value of s's inputs goes into (a
// function's outputs): all secret when any of them is.
func (s Secrecy) Whole() Secrecy {
	return Secrecy{all: s.all || len(s.scopes) > 0, values: s.values}
}

// Seal is m, an answer built from the inputs or state s is the secrecy of (outputs,
// a state, inputs read back), with each of its scopes secret that s holds secret,
// that holds a secret value already, or that holds one of s's secret strings.
func (s Secrecy) Seal(m property.Map) property.Map {
	out := make(map[string]property.Value, m.Len())
	for k, v := range m.All {
		switch {
		case s.all || s.scopes[k]:
			v = v.WithSecret(true)
		case k == metadata && v.IsMap() && !v.Secret():
			meta := make(map[string]property.Value, v.AsMap().Len())
			for mk, mv := range v.AsMap().All {
				meta[mk] = mv.WithSecret(mv.Secret() || s.scopes[metadata+"."+mk] || s.holds(mv))
			}
			v = property.WithGoValue(v, property.NewMap(meta))
		default:
			v = v.WithSecret(v.Secret() || s.holds(v))
		}
		out[k] = v
	}
	return property.NewMap(out)
}

// Fields names the fields of m, an answer, that Seal makes secret, sorted: "endpoints",
// "metadata.labels" (for the warning that a manifest holds them in plain text).
func (s Secrecy) Fields(m property.Map) []string {
	var out []string
	for k, v := range s.Seal(m).All {
		switch {
		case v.Secret():
			out = append(out, k)
		case k == metadata && v.IsMap():
			for mk, mv := range v.AsMap().All {
				if mv.Secret() {
					out = append(out, metadata+"."+mk)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// holds tells whether v holds a secret value or one of s's secret strings.
func (s Secrecy) holds(v property.Value) bool {
	switch {
	case v.Secret():
		return true
	case v.IsString():
		return s.values[v.AsString()]
	case v.IsMap():
		for _, e := range v.AsMap().All {
			if s.holds(e) {
				return true
			}
		}
	case v.IsArray():
		for _, e := range v.AsArray().All {
			if s.holds(e) {
				return true
			}
		}
	}
	return false
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
