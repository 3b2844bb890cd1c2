package validate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// Failure is one input that cannot be accepted.
type Failure struct {
	// Path is the property path of the offending input in Pulumi's property path
	// syntax, such as `endpoints[3].addresses[0]` or
	// `metadata.labels["app.kubernetes.io/name"]`. A missing property is reported at
	// the path where it should be.
	Path string
	// Reason names the rule that the input breaks, in plain words.
	Reason string
}

// Result is the outcome of validating the inputs of one resource.
type Result struct {
	// Inputs are the normalized inputs: defaults applied, server-owned and ignored
	// fields removed, everything else as given.
	Inputs property.Map
	// Failures are sorted by path (array indexes in numeric order), then by reason.
	Failures []Failure
	// Warnings are "<path>: <message>" lines, sorted the same way.
	Warnings []string
}

// path is a property path under construction. Extensions share their prefix (a path
// is a pointer to its last step), so extending costs one small allocation; the
// segments are only spelled out for a failure or warning. Checking a maximal
// EndpointSlice builds over 100,000 paths and reports none.
type path struct{ last *step }

type step struct {
	parent *step
	seg    any // string key or int index
}

// key returns p extended by a map key; p is never modified.
func (p path) key(k string) path { return path{&step{p.last, k}} }

// index returns p extended by an array index; p is never modified.
func (p path) index(i int) path { return path{&step{p.last, i}} }

// segments spells p out: string keys and int indexes, from the root.
func (p path) segments() segments {
	var n int
	for s := p.last; s != nil; s = s.parent {
		n++
	}
	out := make(segments, n)
	for s := p.last; s != nil; s = s.parent {
		n--
		out[n] = s.seg
	}
	return out
}

// String formats p as segments.String does.
func (p path) String() string { return p.segments().String() }

// segments is a spelled-out property path: string keys and int indexes.
type segments []any

// String formats p in Pulumi's property path syntax: bare names where the engine's
// parser reads them back unchanged, `["..."]` otherwise.
func (p segments) String() string {
	var b strings.Builder
	for i, seg := range p {
		switch seg := seg.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(seg) + "]")
		case string:
			if isBareKey(seg) {
				if i > 0 {
					b.WriteByte('.')
				}
				b.WriteString(seg)
				continue
			}
			b.WriteString(`["`)
			b.WriteString(strings.ReplaceAll(seg, `"`, `\"`))
			b.WriteString(`"]`)
		}
	}
	return b.String()
}

// isBareKey reports whether k can be written without quotes: the characters that
// Pulumi's own formatter leaves unquoted.
func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := range len(k) {
		c := k[i]
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// parsesBack reports whether the engine reads p's string form back as p. It does not
// for keys that end in a backslash: the path grammar cannot express them.
func (p segments) parsesBack() bool {
	parsed, err := resource.ParsePropertyPath(p.String())
	if err != nil || len(parsed) != len(p) {
		return false
	}
	for i := range p {
		if parsed[i] != p[i] {
			return false
		}
	}
	return true
}

// comparePaths orders paths segment by segment: indexes numerically, keys
// lexically, an index before a key, a path before its extensions.
func comparePaths(a, b segments) int {
	for i := range min(len(a), len(b)) {
		if c := compareSegments(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareSegments(a, b any) int {
	switch a := a.(type) {
	case int:
		if b, ok := b.(int); ok {
			return cmp.Compare(a, b)
		}
		return -1
	case string:
		if b, ok := b.(string); ok {
			return strings.Compare(a, b)
		}
		return 1
	}
	return 0
}

// note is a failure or warning before formatting.
type note struct {
	path segments
	text string
}

// checker collects the failures and warnings of one validation.
type checker struct {
	failures []note
	warnings []note
	// server is the API server whose rules apply where they differ by minor.
	server *server
	// written is what every write adds to an object besides its inputs.
	written Written
}

// Written is what every write of an object adds to it besides its inputs: the
// annotations the provider keeps on the objects it writes (the resource's URN on a
// cluster), which count against the limit of an object's annotations as the inputs' do.
type Written struct {
	Annotations map[string]string
}

// reject records a failure: the input at p is not accepted, for the reason given.
// Validation goes on, so that every failure is reported at once.
func (c *checker) reject(p path, format string, args ...any) {
	c.failures = append(c.failures, expressible(p.segments(), fmt.Sprintf(format, args...)))
}

// warn records a warning about the input at p, which is accepted.
func (c *checker) warn(p path, format string, args ...any) {
	c.warnings = append(c.warnings, expressible(p.segments(), fmt.Sprintf(format, args...)))
}

// expressible moves a note whose path the engine cannot parse back to the closest
// enclosing path that it can, naming the keys it had to leave out.
func expressible(p segments, text string) note {
	for cut := len(p); cut > 0; cut-- {
		if p[:cut].parsesBack() {
			if cut < len(p) {
				text = fmt.Sprintf("at %s: %s", describeSegments(p[cut:]), text)
			}
			return note{path: p[:cut], text: text}
		}
	}
	return note{path: nil, text: fmt.Sprintf("at %s: %s", describeSegments(p), text)}
}

func describeSegments(segs segments) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		if k, ok := s.(string); ok {
			parts[i] = "key " + strconv.Quote(k)
		} else {
			parts[i] = fmt.Sprintf("index %d", s)
		}
	}
	return strings.Join(parts, ", ")
}

// result sorts and formats what c collected.
func (c *checker) result(inputs property.Map) Result {
	order := func(a, b note) int {
		if d := comparePaths(a.path, b.path); d != 0 {
			return d
		}
		return strings.Compare(a.text, b.text)
	}
	slices.SortFunc(c.failures, order)
	c.failures = slices.CompactFunc(c.failures, func(a, b note) bool { return order(a, b) == 0 })
	slices.SortFunc(c.warnings, order)
	c.warnings = slices.CompactFunc(c.warnings, func(a, b note) bool { return order(a, b) == 0 })

	r := Result{Inputs: inputs}
	for _, f := range c.failures {
		r.Failures = append(r.Failures, Failure{Path: f.path.String(), Reason: f.text})
	}
	for _, w := range c.warnings {
		if len(w.path) == 0 {
			r.Warnings = append(r.Warnings, w.text)
			continue
		}
		r.Warnings = append(r.Warnings, w.path.String()+": "+w.text)
	}
	return r
}

// node is a value being checked by a Kubernetes rule, with its path. Its accessors
// report ok only for known values of the expected type: unknown values and values of
// the wrong type (already reported by the schema walk) make rules skip.
type node struct {
	path   path
	v      property.Value
	secret bool // v or a value enclosing it is secret
}

func rootNode(m property.Map) node { return node{v: property.New(m)} }

// absent reports whether n holds no value: missing or null, and not unknown.
func (n node) absent() bool { return n.v.IsNull() }

// unknown reports whether n's value is not known yet (preview).
func (n node) unknown() bool { return n.v.IsComputed() }

// get returns the property k of a known map; otherwise an absent node.
func (n node) get(k string) node {
	child := node{path: n.path.key(k), secret: n.secret}
	if n.v.IsMap() {
		child.v = n.v.AsMap().Get(k)
		child.secret = child.secret || child.v.Secret()
	} else if n.v.IsComputed() {
		child.v = property.New(property.Computed)
	}
	return child
}

// str returns a known string.
func (n node) str() (string, bool) {
	if n.v.IsString() {
		return n.v.AsString(), true
	}
	return "", false
}

// boolean returns a known boolean.
func (n node) boolean() (bool, bool) {
	if n.v.IsBool() {
		return n.v.AsBool(), true
	}
	return false, false
}

// integer returns a known integral number.
func (n node) integer() (float64, bool) {
	if n.v.IsNumber() {
		f := n.v.AsNumber()
		if f == math.Trunc(f) {
			return f, true
		}
	}
	return 0, false
}

// items returns the elements of a known array.
func (n node) items() ([]node, bool) {
	if !n.v.IsArray() {
		return nil, false
	}
	arr := n.v.AsArray()
	out := make([]node, arr.Len())
	for i := range out {
		v := arr.Get(i)
		out[i] = node{path: n.path.index(i), v: v, secret: n.secret || v.Secret()}
	}
	return out, true
}

// entries returns the entries of a known map, in key order.
func (n node) entries() ([]entry, bool) {
	if !n.v.IsMap() {
		return nil, false
	}
	var out []entry
	for k, v := range n.v.AsMap().AllStable {
		out = append(out, entry{key: k, node: node{path: n.path.key(k), v: v, secret: n.secret || v.Secret()}})
	}
	return out, true
}

type entry struct {
	key string
	node
}

// secretShown stands for a secret value in messages, as the Pulumi CLI shows secrets.
const secretShown = "[secret]"

// show returns s for use in a message, or [secret] when n is secret.
func (n node) show(s string) string {
	if n.secret {
		return secretShown
	}
	return s
}

// quote returns s quoted for use in a message, or [secret] when n is secret.
func (n node) quote(s string) string {
	if n.secret {
		return secretShown
	}
	return strconv.Quote(s)
}
