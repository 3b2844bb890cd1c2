package e2e

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// The API server's deprecation warning for v1 Endpoints and its warning about an FQDN
// slice, as the CLI lists them under Diagnostics (once per diagnostic; the progress
// lines above repeat them).
var (
	endpointsDeprecation = regexp.MustCompile(`(?m)^\s*warning: kubernetes API server: v1 Endpoints is deprecated in v1\.33\+`)
	fqdnWarning          = regexp.MustCompile(`(?m)^\s*warning: kubernetes API server: spec\.addressType: FQDN endpoints are deprecated`)
)

// deprecationProgram is an EndpointsList of three items (each a request to the
// deprecated API) and an FQDN slice (whose writes draw another server warning); port
// varies it.
const deprecationProgram = `name: e2e-deprecation
runtime: yaml
resources:
  fqdn:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: FQDN
      endpoints:
        - addresses: ["web.example.com"]
      ports:
        - name: http
          port: %[2]d
  list:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata: {name: a, namespace: %[1]s}
          subsets: [{addresses: [{ip: 10.0.0.1}], ports: [{name: http, port: %[2]d}]}]
        - metadata: {name: b, namespace: %[1]s}
          subsets: [{addresses: [{ip: 10.0.0.2}], ports: [{name: http, port: %[2]d}]}]
        - metadata: {name: c, namespace: %[1]s}
          subsets: [{addresses: [{ip: 10.0.0.3}], ports: [{name: http, port: %[2]d}]}]
`

// deprecationStack is a stack of program (deprecationProgram or twoProvidersProgram)
// at port 80 in a new namespace of the shared control plane, whose configuration
// config lists, key and value; it returns the stack and the namespace.
func deprecationStack(t *testing.T, program string, config ...string) (*stack, string) {
	t.Helper()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(program, ns, 80), config...)
	return s, ns
}

// warningCounts runs a pulumi command and counts the deprecation and FQDN warnings in
// its output.
func warningCounts(t *testing.T, s *stack, env []string, args ...string) (deprecations, fqdn int, out string) {
	t.Helper()
	out = s.runEnv(env, args...)
	return len(endpointsDeprecation.FindAllString(out, -1)), len(fqdnWarning.FindAllString(out, -1)), out
}

// The v1 Endpoints deprecation is said once by each command that writes or reads an
// EndpointsList (up, refresh), however many requests the command makes, never by
// destroy, and at most once by a preview; the server's other warnings are still shown.
// (A refresh that previews first starts the provider twice, and each reads: it says
// it once in each phase, see TestDeprecationWarningRefreshPhases.)
func TestDeprecationWarningOncePerCommand(t *testing.T) {
	t.Parallel()
	s, ns := deprecationStack(t, deprecationProgram)
	for _, step := range []struct {
		name       string
		port       int
		args       []string
		want, most int // the deprecation warnings wanted: at least want, at most most
		fqdn       bool
	}{
		{"preview", 80, []string{"preview", "--non-interactive"}, 0, 1, true},
		{"up", 80, []string{"up", "--yes", "--non-interactive"}, 1, 1, true},
		{"refresh", 80, []string{"refresh", "--yes", "--non-interactive", "--skip-preview"}, 1, 1, false},
		{"up of a change", 81, []string{"up", "--yes", "--non-interactive"}, 1, 1, false},
		{"destroy", 81, []string{"destroy", "--yes", "--non-interactive"}, 0, 0, false},
	} {
		s.WriteProject(fmt.Sprintf(deprecationProgram, ns, step.port))
		deprecations, fqdn, out := warningCounts(t, s, nil, step.args...)
		if deprecations < step.want || deprecations > step.most {
			t.Errorf("%s: the v1 Endpoints deprecation is shown %d times, want %d to %d:\n%s",
				step.name, deprecations, step.want, step.most, out)
		}
		if step.fqdn && fqdn == 0 {
			t.Errorf("%s: the API server's FQDN warning is not shown:\n%s", step.name, out)
		}
	}
}

// suppressDeprecationWarnings, from the stack's configuration or the environment,
// hides the v1 Endpoints deprecation in every command; the server's other warnings
// are still shown.
func TestDeprecationWarningSuppressed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		config []string
		env    []string
	}{
		{name: "config set", config: []string{"endpoints:suppressDeprecationWarnings", "true"}},
		{name: "environment", env: []string{"PULUMI_ENDPOINTS_SUPPRESS_DEPRECATION_WARNINGS=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, ns := deprecationStack(t, deprecationProgram, tc.config...)
			for _, step := range []struct {
				name string
				port int
				args []string
				fqdn bool
			}{
				{"preview", 80, []string{"preview", "--non-interactive"}, true},
				{"up", 80, []string{"up", "--yes", "--non-interactive"}, true},
				{"refresh", 80, []string{"refresh", "--yes", "--non-interactive"}, false},
				{"up of a change", 81, []string{"up", "--yes", "--non-interactive"}, false},
				{"destroy", 81, []string{"destroy", "--yes", "--non-interactive"}, false},
			} {
				s.WriteProject(fmt.Sprintf(deprecationProgram, ns, step.port))
				deprecations, fqdn, out := warningCounts(t, s, tc.env, step.args...)
				if deprecations != 0 {
					t.Errorf("%s: the v1 Endpoints deprecation is shown %d times with suppressDeprecationWarnings:\n%s",
						step.name, deprecations, out)
				}
				if step.fqdn && fqdn == 0 {
					t.Errorf("%s: the API server's FQDN warning is not shown with suppressDeprecationWarnings:\n%s",
						step.name, out)
				}
			}
		})
	}
}

// A refresh with its preview starts the provider for each phase: each phase says the
// deprecation at most once.
func TestDeprecationWarningRefreshPhases(t *testing.T) {
	t.Parallel()
	s, _ := deprecationStack(t, deprecationProgram)
	s.Run("up", "--yes", "--non-interactive", "--skip-preview")
	out := s.runEnv(nil, "refresh", "--yes", "--non-interactive")
	phases := regexp.MustCompile(`(?m)^(Previewing refresh|Refreshing) \(`).Split(out, -1)
	if len(phases) != 3 {
		t.Fatalf("refresh printed %d phases, want a preview and a refresh:\n%s", len(phases)-1, out)
	}
	for i, phase := range phases[1:] {
		if n := len(endpointsDeprecation.FindAllString(phase, -1)); n > 1 {
			t.Errorf("refresh phase %d: the v1 Endpoints deprecation is shown %d times, want at most once:\n%s", i+1, n, out)
		}
	}
}

// twoProvidersProgram is an EndpointsList of two items on each of two explicit
// providers.
const twoProvidersProgram = `name: e2e-deprecation-providers
runtime: yaml
resources:
  first:
    type: pulumi:providers:endpoints
  second:
    type: pulumi:providers:endpoints
  firstList:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata: {name: a, namespace: %[1]s}
          subsets: [{addresses: [{ip: 10.0.0.1}], ports: [{name: http, port: %[2]d}]}]
        - metadata: {name: b, namespace: %[1]s}
          subsets: [{addresses: [{ip: 10.0.0.2}], ports: [{name: http, port: %[2]d}]}]
    options:
      provider: ${first}
  secondList:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata: {name: c, namespace: %[1]s}
          subsets: [{addresses: [{ip: 10.0.0.3}], ports: [{name: http, port: %[2]d}]}]
        - metadata: {name: d, namespace: %[1]s}
          subsets: [{addresses: [{ip: 10.0.0.4}], ports: [{name: http, port: %[2]d}]}]
    options:
      provider: ${second}
`

// Each configured provider of a stack says the deprecation once per command.
func TestDeprecationWarningOncePerProvider(t *testing.T) {
	t.Parallel()
	s, ns := deprecationStack(t, twoProvidersProgram)
	for _, step := range []struct {
		name string
		port int
		args []string
		want int
	}{
		{"up", 80, []string{"up", "--yes", "--non-interactive"}, 2},
		{"refresh", 80, []string{"refresh", "--yes", "--non-interactive", "--skip-preview"}, 2},
		{"up of a change", 81, []string{"up", "--yes", "--non-interactive", "--skip-preview"}, 2},
		{"destroy", 81, []string{"destroy", "--yes", "--non-interactive"}, 0},
	} {
		s.WriteProject(fmt.Sprintf(twoProvidersProgram, ns, step.port))
		deprecations, _, out := warningCounts(t, s, nil, step.args...)
		if deprecations != step.want {
			t.Errorf("%s with two providers: the v1 Endpoints deprecation is shown %d times, want %d (once per provider):\n%s",
				step.name, deprecations, step.want, out)
		}
	}
}
