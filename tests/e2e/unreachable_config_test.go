package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// goneProgram is a slice and an EndpointsList (identityProgram without its outputs,
// which name the slice); %[2]d is the slice's port.
var goneProgram, _, _ = strings.Cut(identityProgram, "outputs:")

// explicitProgram is goneProgram with its slice and EndpointsList on an explicit
// provider, cluster, whose deleteUnreachable comes from the stack's configuration: the
// configuration and the provider go before the resources, onCluster after each.
var explicitProgram = strings.NewReplacer(
	"name: e2e-identity\nruntime: yaml\nresources:\n", `name: e2e-explicit
runtime: yaml
configuration:
  deleteUnreachable:
    type: Boolean
resources:
  cluster:
    type: pulumi:providers:endpoints
    properties:
      deleteUnreachable: ${deleteUnreachable}
`,
	"\n  list:\n", "\n"+onCluster+"  list:\n",
).Replace(goneProgram) + onCluster

// onCluster is the options that put a resource of explicitProgram on its provider.
const onCluster = "    options:\n      provider: ${cluster}\n"

// sliceProgram and listProgram are goneProgram's slice and its EndpointsList, each alone
// in a program; the list's item has the port %[2]d, as the slice has.
var sliceProgram, listProgram = func() (string, string) {
	slice, list, _ := strings.Cut(goneProgram, "  list:\n")
	header, _, _ := strings.Cut(slice, "  slice:\n")
	return slice, header + "  list:\n" + strings.Replace(list, "port: 80", "port: %[2]d", 1)
}()

// The words of the hints that the tests follow.
const (
	dropEnv        = "PULUMI_ENDPOINTS_DELETE_UNREACHABLE=true"
	dropConfigSet  = "pulumi config set endpoints:deleteUnreachable true"
	dropDestroy    = "pulumi destroy --run-program"
	dropRefresh    = "pulumi refresh --run-program"
	skipConfigSet  = "pulumi config set endpoints:skipUpdateUnreachable true"
	skipEnv        = "PULUMI_ENDPOINTS_SKIP_UPDATE_UNREACHABLE=true"
	skipRunUpAgain = "run `pulumi up` again"
)

// The commands the tests run against the unreachable cluster, and the hints they follow.
var (
	upCmd      = []string{"up", "--yes", "--non-interactive", "--skip-preview"}
	destroyCmd = []string{"destroy", "--yes", "--non-interactive", "--skip-preview"}
	refreshCmd = []string{"refresh", "--yes", "--non-interactive", "--skip-preview"}
	dropHint   = []string{"is unreachable", dropEnv, dropConfigSet, dropDestroy, dropRefresh}
	skipHint   = []string{"is unreachable", skipConfigSet, skipEnv, skipRunUpAgain}
)

// The warnings of the settings, each for a resource they spare.
const (
	keptWarning    = "skipUpdateUnreachable is set, so the last state is kept"
	droppedWarning = "deleteUnreachable is set, so the object is dropped from the state"
)

// The types of the stack's Kubernetes resources.
var kubeTypes = []string{spec.EndpointSliceToken, spec.EndpointsListToken}

// goneStack is a stack whose slice and EndpointsList (those of them the program
// declares) were created through a proxy that is then cut: its cluster is unreachable
// for good. config lists the stack's configuration, key and value.
func goneStack(t *testing.T, program string, config ...string) (*stack, string) {
	t.Helper()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	proxy, s := proxied(t, cp)
	s.init(fmt.Sprintf(program, ns, 80), config...)
	s.Run(upCmd...)
	for _, typ := range kubeTypes {
		if n, want := resources(t, s, typ), strings.Count(program, "type: "+typ); n != want {
			t.Fatalf("after up, the state has %d of %s, want %d", n, typ, want)
		}
	}
	proxy.Cut()
	return s, ns
}

// emptied fails the test unless the stack's state holds none of its Kubernetes
// resources.
func emptied(t *testing.T, s *stack, step string) {
	t.Helper()
	for _, typ := range kubeTypes {
		if n := resources(t, s, typ); n != 0 {
			t.Errorf("after %s, the state still has %d of %s", step, n, typ)
		}
	}
}

// hinted runs a command against the unreachable cluster and fails the test unless it
// fails with every one of the hint's words, and without saying that something may have
// been written: nothing reached the cluster.
func hinted(t *testing.T, s *stack, hint []string, args ...string) {
	t.Helper()
	out, err := s.Try(args...)
	if err == nil {
		t.Fatalf("pulumi %s against an unreachable cluster succeeded:\n%s", strings.Join(args, " "), out)
	}
	for _, words := range hint {
		if !strings.Contains(out, words) {
			t.Fatalf("pulumi %s failed without saying %q:\n%s", strings.Join(args, " "), words, out)
		}
	}
	if strings.Contains(out, "may or may not") {
		t.Errorf("pulumi %s says that something may have been written, though nothing was sent:\n%s",
			strings.Join(args, " "), out)
	}
}

// For a cluster gone for good, the error of destroy and refresh names ways to drop its
// objects that work when followed to the letter: `pulumi config set` and then the
// command with --run-program (a plain destroy or refresh still uses the settings of the
// last update, so it fails again), or the environment variable with the plain command.
// Each leaves a stack without the objects.
func TestUnreachableHintsWork(t *testing.T) {
	t.Parallel()
	runProgram := func(args []string) []string { return append([]string{args[0], "--run-program"}, args[1:]...) }
	for _, tc := range []struct {
		name    string
		program string
		config  []string
		// follow does what the hint says after the command failed.
		follow func(t *testing.T, s *stack)
	}{
		{"config set, then destroy --run-program", goneProgram, nil, func(t *testing.T, s *stack) {
			s.Run(strings.Fields(dropConfigSet)[1:]...)
			hinted(t, s, dropHint, destroyCmd...)
			s.Run(runProgram(destroyCmd)...)
		}},
		{"config set, then refresh --run-program", goneProgram, nil, func(t *testing.T, s *stack) {
			s.Run(strings.Fields(dropConfigSet)[1:]...)
			hinted(t, s, dropHint, refreshCmd...)
			s.Run(runProgram(refreshCmd)...)
		}},
		{"the environment variable, then destroy", goneProgram, nil, func(_ *testing.T, s *stack) {
			s.runEnv([]string{dropEnv}, destroyCmd...)
		}},
		{"the environment variable, then refresh", goneProgram, nil, func(_ *testing.T, s *stack) {
			s.runEnv([]string{dropEnv}, refreshCmd...)
		}},
		{"an explicit provider's setting from the configuration, then destroy --run-program", explicitProgram,
			[]string{"deleteUnreachable", "false"}, func(t *testing.T, s *stack) {
				s.Run("config", "set", "deleteUnreachable", "true")
				hinted(t, s, dropHint, destroyCmd...)
				s.Run(runProgram(destroyCmd)...)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := goneStack(t, tc.program, tc.config...)
			hinted(t, s, dropHint, destroyCmd...)
			hinted(t, s, dropHint, refreshCmd...)
			tc.follow(t, s)
			emptied(t, s, tc.name)
		})
	}
}

// An update against a cluster gone for now fails with the skipUpdateUnreachable hint;
// `pulumi config set` then `pulumi up` (which runs the program), or the environment
// variable, keeps the last state.
func TestUnreachableSkipHintWorks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		follow func(s *stack) string
	}{
		{"config set, then up", func(s *stack) string {
			s.Run(strings.Fields(skipConfigSet)[1:]...)
			return s.runEnv(nil, upCmd...)
		}},
		{"the environment variable, then up", func(s *stack) string {
			return s.runEnv([]string{skipEnv}, upCmd...)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, ns := goneStack(t, goneProgram)
			s.WriteProject(fmt.Sprintf(goneProgram, ns, 81))
			hinted(t, s, skipHint, upCmd...)
			if out := tc.follow(s); !strings.Contains(out, keptWarning) {
				t.Errorf("the up that follows the hint does not keep the last state:\n%s", out)
			}
		})
	}
}

// An EndpointsList meets a cluster gone as a slice does, under both settings. An edit
// fails with the skipUpdateUnreachable hint; with the setting the up succeeds, keeps the
// resource with a warning. A destroy fails with the deleteUnreachable hint; with the
// setting it succeeds and drops the resource from the state with a warning.
func TestUnreachableListAsSlice(t *testing.T) {
	t.Parallel()
	for _, res := range []struct {
		name, typ, program string
	}{
		{"EndpointSlice", kubeTypes[0], sliceProgram},
		{"EndpointsList", kubeTypes[1], listProgram},
	} {
		t.Run(res.name+" skipUpdateUnreachable", func(t *testing.T) {
			t.Parallel()
			s, ns := goneStack(t, res.program)
			s.WriteProject(fmt.Sprintf(res.program, ns, 81))
			hinted(t, s, skipHint, upCmd...)
			if out := s.runEnv([]string{skipEnv}, upCmd...); !strings.Contains(out, keptWarning) {
				t.Errorf("the up with %s does not warn that it kept the last state:\n%s", skipEnv, out)
			}
			if n := resources(t, s, res.typ); n != 1 {
				t.Errorf("after the skipped update, the state has %d of %s, want 1", n, res.typ)
			}
		})
		t.Run(res.name+" deleteUnreachable", func(t *testing.T) {
			t.Parallel()
			s, _ := goneStack(t, res.program)
			hinted(t, s, dropHint, destroyCmd...)
			if out := s.runEnv([]string{dropEnv}, destroyCmd...); !strings.Contains(out, droppedWarning) {
				t.Errorf("the destroy with %s does not warn that it dropped the resource:\n%s", dropEnv, out)
			}
			emptied(t, s, "the destroy with "+dropEnv)
		})
	}
}
