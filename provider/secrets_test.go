package provider

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"sigs.k8s.io/yaml"
)

// secretCases is how many programs TestSecretsNeverLeak runs: each a slice and a list,
// through Check, Create, a refresh after another client's edits, Update and a second
// refresh (about 2 ms each on an idle machine).
const secretCases = 300

// TestSecretsNeverLeak is the secret rule's property: whatever values a program marks
// secret, at whatever depth (a leaf, an endpoint, a whole field such as endpoints or
// items), and whatever another client does to the objects in between (reorders,
// drops and adds endpoints, subsets, addresses and items, spells defaults out), no
// answer of the served lifecycles holds a string the program marked secret outside a
// secret: Check's inputs, Create's outputs, a refresh's state and inputs (with the
// previous inputs' marks, and without them: the state's are enough), Update's outputs.
// The provider writes to a render directory, which the other client edits. No log line
// says a secret string either. Seeded, so a failure names its seed and case and runs
// again the same.
//
// Not parallel: it reads the provider's log from slog's default logger, where the
// provider logs without an engine, and sets it for its run (the package's parallel
// tests start after it).
func TestSecretsNeverLeak(t *testing.T) { //nolint:paralleltest // it sets slog's default logger (see above)
	log := &lines{}
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(log))
	// The same cases on every run; SECRETS_SEED picks others.
	seed := uint64(1)
	if s := os.Getenv("SECRETS_SEED"); s != "" {
		fmt.Sscan(s, &seed) //nolint:errcheck,gosec // a bad seed leaves the default
	}
	began := time.Now()
	for i := range secretCases {
		rng := rand.New(rand.NewPCG(seed, uint64(i))) //nolint:gosec // a reproducible test, not a secret
		dir := t.TempDir()
		srv, _ := newTestServer(t, noEnv)
		if err := srv.Configure(p.ConfigureRequest{Args: property.NewMap(map[string]property.Value{
			"renderDirectory": property.New(dir),
		})}); err != nil {
			t.Fatalf("Configure: %v", err)
		}
		c := secretCase{t: t, srv: srv, rng: rng, dir: dir, name: fmt.Sprintf("seed %d, case %d", seed, i)}
		log.take()
		c.run(sliceType, c.slice(), log)
		c.run(listType, c.list(), log)
		if t.Failed() {
			t.Fatalf("SECRETS_SEED=%d reproduces this run", seed)
		}
	}
	// go test shows this line with -v, and with the output of a failing run.
	fmt.Printf("TestSecretsNeverLeak: %d cases (a slice and a list each, seed %d; SECRETS_SEED picks others) in %s\n", secretCases, seed,
		time.Since(began).Round(time.Millisecond))
}

const (
	sliceType = "endpoints:discovery.k8s.io/v1:EndpointSlice"
	listType  = "endpoints:core/v1:EndpointsList"
)

// secretCase is one program of TestSecretsNeverLeak.
type secretCase struct {
	t    *testing.T
	srv  integration.Server
	rng  *rand.Rand
	dir  string
	name string
	ips  int
}

// run runs the lifecycle of the resource of token with the program's inputs in, and
// checks every answer.
func (c *secretCase) run(token string, in property.Map, log *lines) {
	c.t.Helper()
	secrets := secretStrings(property.New(in))
	defer c.quiet(log, secrets)
	urn := resource.NewURN("dev", "p", "", tokens.Type(token), "r")
	check, err := c.srv.Check(p.CheckRequest{Urn: urn, Inputs: in})
	if err != nil || len(check.Failures) > 0 {
		c.t.Fatalf("%s: Check of %v: %v %v", c.name, in, err, check.Failures)
	}
	c.noLeak("Check's inputs", check.Inputs, secrets)
	created, err := c.srv.Create(p.CreateRequest{Urn: urn, Properties: check.Inputs})
	if err != nil {
		c.t.Fatalf("%s: Create: %v", c.name, err)
	}
	c.noLeak("Create's outputs", created.Properties, secrets)
	c.edit()
	olds := check.Inputs
	if c.rng.IntN(3) == 0 {
		olds = unmarked(olds) // the state alone marks the secrets
	}
	read, err := c.srv.Read(p.ReadRequest{ID: created.ID, Urn: urn, Properties: created.Properties, Inputs: olds})
	if err != nil || read.ID == "" {
		c.t.Fatalf("%s: Read: %q %v", c.name, read.ID, err)
	}
	c.noLeak("the refreshed state", read.Properties, secrets)
	c.noLeak("the refreshed inputs", read.Inputs, secrets)
	again, err := c.srv.Check(p.CheckRequest{Urn: urn, Inputs: in, State: read.Inputs})
	if err != nil || len(again.Failures) > 0 {
		c.t.Fatalf("%s: Check of the update: %v %v", c.name, err, again.Failures)
	}
	c.noLeak("Check's inputs of the update", again.Inputs, secrets)
	updated, err := c.srv.Update(p.UpdateRequest{ID: read.ID, Urn: urn, State: read.Properties,
		OldInputs: read.Inputs, Inputs: again.Inputs})
	if err != nil {
		c.t.Fatalf("%s: Update: %v", c.name, err)
	}
	c.noLeak("Update's outputs", updated.Properties, secrets)
	c.edit()
	read, err = c.srv.Read(p.ReadRequest{ID: read.ID, Urn: urn, Properties: updated.Properties, Inputs: again.Inputs})
	if err != nil {
		c.t.Fatalf("%s: second Read: %v", c.name, err)
	}
	c.noLeak("the state refreshed again", read.Properties, secrets)
	c.noLeak("the inputs refreshed again", read.Inputs, secrets)
}

// noLeak fails the test where answer holds one of secrets outside a secret.
func (c *secretCase) noLeak(what string, answer property.Map, secrets map[string]bool) {
	c.t.Helper()
	var leaks []string
	walkPlain(property.New(answer), "", func(path, s string) {
		if secrets[s] {
			leaks = append(leaks, fmt.Sprintf("%s = %q", path, s))
		}
	})
	if len(leaks) > 0 {
		c.t.Errorf("%s: %s holds secrets in plain text: %s", c.name, what, strings.Join(leaks, ", "))
	}
}

// quiet fails the test where a line the provider logged says one of secrets: anywhere
// in the line, or, for a string shorter than 4 characters, where it stands alone.
func (c *secretCase) quiet(log *lines, secrets map[string]bool) {
	c.t.Helper()
	for _, line := range log.take() {
		for s := range secrets {
			if said(line, s) {
				c.t.Errorf("%s: the provider logged the secret %q: %s", c.name, s, line)
			}
		}
	}
}

// said tells whether line says s (see quiet).
func said(line, s string) bool {
	if len(s) >= 4 {
		return strings.Contains(line, s)
	}
	word := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' }
	for i := strings.Index(line, s); i >= 0; {
		end := i + len(s)
		if (i == 0 || !word(line[i-1])) && (end == len(line) || !word(line[end])) {
			return true
		}
		next := strings.Index(line[i+1:], s)
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// lines is a slog.Handler that keeps the messages logged.
type lines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }

func (l *lines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}

func (l *lines) WithAttrs([]slog.Attr) slog.Handler { return l }

func (l *lines) WithGroup(string) slog.Handler { return l }

// take returns the messages logged since the last take.
func (l *lines) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.msgs
	l.msgs = nil
	return out
}

// walkPlain calls f with each string of v outside a secret, and its path.
func walkPlain(v property.Value, path string, f func(path, s string)) {
	switch {
	case v.Secret():
	case v.IsString():
		f(path, v.AsString())
	case v.IsMap():
		for k, e := range v.AsMap().All {
			walkPlain(e, path+"."+k, f)
		}
	case v.IsArray():
		for i, e := range v.AsArray().All {
			walkPlain(e, fmt.Sprintf("%s[%d]", path, i), f)
		}
	}
}

// secretStrings are the strings of v within a secret: what the program marked.
func secretStrings(v property.Value) map[string]bool {
	out := map[string]bool{}
	var walk func(v property.Value, under bool)
	walk = func(v property.Value, under bool) {
		under = under || v.Secret()
		switch {
		case v.IsString() && under && v.AsString() != "":
			out[v.AsString()] = true
		case v.IsMap():
			for _, e := range v.AsMap().All {
				walk(e, under)
			}
		case v.IsArray():
			for _, e := range v.AsArray().All {
				walk(e, under)
			}
		}
	}
	walk(v, false)
	return out
}

// unmarked is m without its secret marks.
func unmarked(m property.Map) property.Map {
	var strip func(v property.Value) property.Value
	strip = func(v property.Value) property.Value {
		v = v.WithSecret(false)
		switch {
		case v.IsMap():
			out := map[string]property.Value{}
			for k, e := range v.AsMap().All {
				out[k] = strip(e)
			}
			return property.New(out)
		case v.IsArray():
			out := []property.Value{}
			for _, e := range v.AsArray().All {
				out = append(out, strip(e))
			}
			return property.New(out)
		}
		return v
	}
	return strip(property.New(m)).AsMap()
}

// The programs: a slice and a list, optional fields present or not, of random sizes,
// with random values marked secret.

func (c *secretCase) maybe() bool { return c.rng.IntN(2) == 0 }

// ip is an address no other of the case has.
func (c *secretCase) ip() string {
	c.ips++
	return fmt.Sprintf("10.%d.%d.%d", c.rng.IntN(200), c.ips/200, 1+c.ips%200)
}

func (c *secretCase) meta(name string) map[string]any {
	m := map[string]any{"name": name}
	if c.maybe() {
		m["namespace"] = "ns"
	}
	if c.maybe() {
		m["labels"] = map[string]any{"app": "web", "team": fmt.Sprintf("team-%d", c.rng.IntN(3))}
	}
	if c.maybe() {
		m["annotations"] = map[string]any{"note": fmt.Sprintf("note %d", c.rng.IntN(100))}
	}
	return m
}

func (c *secretCase) ports() []any {
	var ports []any
	for i := range 1 + c.rng.IntN(2) {
		port := map[string]any{"name": fmt.Sprintf("p%d", i), "port": 8080 + i}
		if c.maybe() {
			port["protocol"] = "TCP"
		}
		ports = append(ports, port)
	}
	return ports
}

func (c *secretCase) slice() property.Map {
	var endpoints []any
	for range 1 + c.rng.IntN(4) {
		ep := map[string]any{"addresses": []any{c.ip()}}
		if c.maybe() {
			ep["conditions"] = map[string]any{"ready": c.maybe()}
		}
		if c.maybe() {
			ep["hostname"] = fmt.Sprintf("host-%d", c.rng.IntN(5))
		}
		if c.maybe() {
			ep["nodeName"] = fmt.Sprintf("node-%d", c.rng.IntN(3))
		}
		endpoints = append(endpoints, ep)
	}
	obj := map[string]any{"metadata": c.meta("web"), "addressType": "IPv4", "endpoints": endpoints}
	if c.maybe() {
		obj["ports"] = c.ports()
	}
	return c.marked(obj)
}

func (c *secretCase) list() property.Map {
	var items []any
	for i := range 1 + c.rng.IntN(3) {
		var subsets []any
		for range 1 + c.rng.IntN(2) {
			var addresses []any
			for range 1 + c.rng.IntN(2) {
				a := map[string]any{"ip": c.ip()}
				if c.maybe() {
					a["nodeName"] = fmt.Sprintf("node-%d", c.rng.IntN(3))
				}
				addresses = append(addresses, a)
			}
			subset := map[string]any{"addresses": addresses, "ports": c.ports()}
			if c.maybe() {
				subset["notReadyAddresses"] = []any{map[string]any{"ip": c.ip()}}
			}
			subsets = append(subsets, subset)
		}
		items = append(items, map[string]any{"metadata": c.meta(fmt.Sprintf("item-%d", i)), "subsets": subsets})
	}
	return c.marked(map[string]any{"items": items})
}

// marked is obj as property values, some of them secret (one at least): any value,
// a leaf or a whole field, with the same chance.
func (c *secretCase) marked(obj map[string]any) property.Map {
	for {
		var n int
		m := c.mark(obj, &n, true).AsMap()
		if n > 0 {
			return m
		}
	}
}

func (c *secretCase) mark(v any, n *int, top bool) property.Value {
	var out property.Value
	switch x := v.(type) {
	case map[string]any:
		m := map[string]property.Value{}
		for k, e := range x {
			m[k] = c.mark(e, n, false)
		}
		out = property.New(m)
	case []any:
		a := make([]property.Value, 0, len(x))
		for _, e := range x {
			a = append(a, c.mark(e, n, false))
		}
		out = property.New(a)
	case string:
		out = property.New(x)
	case int:
		out = property.New(float64(x))
	case bool:
		out = property.New(x)
	}
	if !top && c.rng.IntN(8) == 0 {
		*n++
		out = out.WithSecret(true)
	}
	return out
}

// edit is another client at work on the objects the provider wrote: it reorders,
// drops and adds endpoints, subsets and addresses, spells defaults out, and deletes
// an Endpoints object of several.
func (c *secretCase) edit() {
	c.t.Helper()
	files, err := filepath.Glob(filepath.Join(c.dir, "*.yaml"))
	if err != nil {
		c.t.Fatal(err)
	}
	slices.Sort(files)
	var endpoints []string
	for _, f := range files {
		data, err := os.ReadFile(f) //nolint:gosec // the test's own directory
		if err != nil {
			c.t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(data, &obj); err != nil {
			c.t.Fatal(err)
		}
		if obj["kind"] == "Endpoints" {
			endpoints = append(endpoints, f)
			obj["subsets"] = c.shuffled(obj["subsets"], c.editSubset)
		} else {
			obj["endpoints"] = c.shuffled(obj["endpoints"], c.editEndpoint)
			obj["ports"] = c.defaulted(obj["ports"])
		}
		if data, err = yaml.Marshal(obj); err != nil {
			c.t.Fatal(err)
		}
		if err := os.WriteFile(f, data, 0o600); err != nil {
			c.t.Fatal(err)
		}
	}
	if len(endpoints) > 1 && c.maybe() {
		if err := os.Remove(endpoints[c.rng.IntN(len(endpoints))]); err != nil {
			c.t.Fatal(err)
		}
	}
}

// shuffled is the list v shuffled, each element edited, one dropped (of several) and
// one added, at random.
func (c *secretCase) shuffled(v any, edit func(map[string]any) map[string]any) []any {
	list, _ := v.([]any)
	list = slices.Clone(list)
	c.rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	if len(list) > 1 && c.maybe() {
		list = list[1:]
	}
	if c.maybe() {
		list = append(list, map[string]any{})
	}
	for i, e := range list {
		m, _ := e.(map[string]any)
		list[i] = edit(m)
	}
	return list
}

func (c *secretCase) editEndpoint(ep map[string]any) map[string]any {
	if _, ok := ep["addresses"]; !ok {
		ep["addresses"] = []any{c.ip()}
	}
	if _, ok := ep["conditions"]; !ok {
		ep["conditions"] = map[string]any{}
	}
	return ep
}

func (c *secretCase) editSubset(s map[string]any) map[string]any {
	if _, ok := s["addresses"]; !ok {
		s["addresses"] = []any{map[string]any{"ip": c.ip()}}
		s["ports"] = []any{map[string]any{"name": "p0", "port": 9090}}
	}
	s["addresses"] = c.shuffled(s["addresses"], func(a map[string]any) map[string]any {
		if _, ok := a["ip"]; !ok {
			a["ip"] = c.ip()
		}
		return a
	})
	s["ports"] = c.defaulted(s["ports"])
	return s
}

// defaulted is the ports v with their protocol spelled out.
func (c *secretCase) defaulted(v any) any {
	ports, ok := v.([]any)
	if !ok {
		return v
	}
	for _, e := range ports {
		if port, ok := e.(map[string]any); ok && port["protocol"] == nil {
			port["protocol"] = "TCP"
		}
	}
	return ports
}

// The text of an answer says [secret] for a program's secret values: an error that
// quotes an object's secret name, and a Check failure that quotes, at a path the
// program did not mark, a value it marked secret elsewhere.
func TestErrorsSayNoSecret(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, noEnv)
	if err := srv.Configure(p.ConfigureRequest{Args: property.NewMap(map[string]property.Value{
		"renderDirectory": property.New(t.TempDir()),
	})}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	const name = "hidden-name"
	inputs := property.NewMap(map[string]property.Value{
		"metadata":    property.New(map[string]property.Value{"name": property.New(name).WithSecret(true)}),
		"addressType": property.New("IPv4"),
		"endpoints": property.New([]property.Value{property.New(map[string]property.Value{
			"addresses": property.New([]property.Value{property.New("10.0.0.1")}),
		})}),
	})
	for i, urn := range []string{"a", "b"} {
		_, err := srv.Create(p.CreateRequest{Urn: resource.NewURN("dev", "p", "", sliceType, urn), Properties: inputs})
		switch {
		case i == 0 && err != nil:
			t.Fatalf("Create: %v", err)
		case i == 1 && (err == nil || strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "[secret]")):
			t.Errorf("the second Create of %s: %v; want an error that says [secret] for the name", name, err)
		}
	}

	const bad = "300.1.2.3"
	addresses := func(v property.Value) property.Value {
		return property.New(map[string]property.Value{"addresses": property.New([]property.Value{v})})
	}
	check, err := srv.Check(p.CheckRequest{Urn: resource.NewURN("dev", "p", "", sliceType, "c"),
		Inputs: inputs.Set("endpoints", property.New([]property.Value{
			addresses(property.New(bad).WithSecret(true)), addresses(property.New(bad)),
		}))})
	if err != nil || len(check.Failures) == 0 {
		t.Fatalf("Check of %s: %v %v; want failures", bad, err, check.Failures)
	}
	for _, f := range check.Failures {
		if strings.Contains(f.Reason, bad) {
			t.Errorf("Check's failure at %s quotes the secret %s: %s", f.Property, bad, f.Reason)
		}
	}
}

// A function's failures say [secret] for a secret argument they quote.
func TestInvokeSaysNoSecret(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, noEnv)
	const bad = "org/hidden"
	resp, err := srv.Invoke(p.InvokeRequest{
		Token: "endpoints:accessgateway/v1:getOrganizationPartnerTenantProxyConfigIamPolicy",
		Args: property.NewMap(map[string]property.Value{
			"organizationId":  property.New(bad).WithSecret(true),
			"partnerTenantId": property.New("t"),
			"proxyConfigId":   property.New("c"),
		}),
	})
	if err != nil || len(resp.Failures) == 0 {
		t.Fatalf("Invoke with organizationId %q: %v %v; want a failure", bad, err, resp.Failures)
	}
	for _, f := range resp.Failures {
		if strings.Contains(f.Reason, bad) || !strings.Contains(f.Reason, "[secret]") {
			t.Errorf("the failure at %s: %s; want [secret] for the argument", f.Property, f.Reason)
		}
	}
}

// The configuration's failures and errors say [secret] for a secret setting they
// quote.
func TestConfigSaysNoSecret(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, noEnv)
	const bad = "SometimesMaybe"
	resp, err := srv.CheckConfig(p.CheckRequest{Urn: resource.CreateURN("p", "pulumi:providers:endpoints", "", "p", "dev"),
		Inputs: property.NewMap(map[string]property.Value{"deletePropagationPolicy": property.New(bad).WithSecret(true)})})
	text := fmt.Sprint(err)
	for _, f := range resp.Failures {
		text += "; " + f.Reason
	}
	if err == nil && len(resp.Failures) == 0 {
		t.Fatalf("CheckConfig of the deletePropagationPolicy %q: no failure", bad)
	}
	if strings.Contains(text, bad) {
		t.Errorf("CheckConfig quotes the secret deletePropagationPolicy: %s", text)
	}
}
