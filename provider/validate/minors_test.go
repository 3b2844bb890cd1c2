package validate

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// countingServer is a Server of a minor that counts the times Check asks it.
type countingServer struct {
	minor   int
	version string
	asked   atomic.Int32
}

func (s *countingServer) Version() (int, string) {
	s.asked.Add(1)
	return s.minor, s.version
}

// TestServerAskedOnlyWhenTheMinorMatters checks that Check asks the server's version
// only for an input whose verdict differs by minor, and once per validation however
// many such inputs there are: a provider asks its cluster only then.
func TestServerAskedOnlyWhenTheMinorMatters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		doc   string
		asked int32
	}{
		{"plain addresses", slice4(`{"addresses":["10.0.0.1","10.0.0.2"],"hints":{"forZones":[{"name":"a"}]}}`), 0},
		{"canonical IPv6", sliceOf("IPv6", "2001:db8::1"), 0},
		{"leading zeros twice", slice4(`{"addresses":["010.0.0.1","010.0.0.2"]}`), 1},
		{"non-canonical IPv6", sliceOf("IPv6", "2001:db8:0:0:0:0:0:1"), 1},
		{"node hints on two endpoints", slice4(`{"addresses":["10.0.0.1"],"hints":{"forNodes":[{"name":"a"}]}},` +
			`{"addresses":["10.0.0.2"],"hints":{"forNodes":[{"name":"b"}]}}`), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &countingServer{minor: 32, version: "v1.32.13"}
			EndpointSlice(inputs(t, tt.doc), s, Written{})
			if got := s.asked.Load(); got != tt.asked {
				t.Errorf("the server was asked %d times, want %d", got, tt.asked)
			}
		})
	}
}

// TestNodeHintsByMinor checks what Check does with hints.forNodes on each minor: on
// 1.34 and later it validates and keeps them; where the server drops them (1.33, with
// its feature gate off, and 1.32, which does not know the field), it leaves them out
// of the inputs, invalid ones included, with a warning that names the field and the
// server's version, and keeps the zone hints.
func TestNodeHintsByMinor(t *testing.T) {
	t.Parallel()
	nine := slice4(`{"addresses":["10.0.0.1"],"hints":{"forZones":[{"name":"a"}],"forNodes":[` +
		repeatJSON(9, `{"name":"n%d"}`) + `]}}`)
	for _, tt := range []struct {
		server   Server
		failures []want
		warnings []want
		kept     bool
	}{
		{server: Minor(34), failures: []want{{"endpoints[0].hints.forNodes", "at most 8 nodes per endpoint hint (got 9)"}}, kept: true},
		{server: Newest, failures: []want{{"endpoints[0].hints.forNodes", "at most 8 nodes"}}, kept: true},
		{
			server:   &countingServer{minor: 33, version: "v1.33.13"},
			warnings: []want{{"endpoints[0].hints.forNodes", "Kubernetes v1.33.13 drops node hints: its PreferSameTrafficDistribution feature gate is off by default"}},
		},
		{
			server:   &countingServer{minor: 32, version: "v1.32.13"},
			warnings: []want{{"endpoints[0].hints.forNodes", "Kubernetes v1.32.13 does not know node hints (new in Kubernetes 1.33, on by default from 1.34) and drops them, so they are left out of the slice"}},
		},
		{
			server:   &countingServer{minor: 30, version: "v1.30.2"},
			warnings: []want{{"endpoints[0].hints.forNodes", "Kubernetes v1.30.2 does not know node hints"}},
		},
	} {
		r := EndpointSlice(inputs(t, nine), tt.server, Written{})
		checkResult(t, r, tt.failures, tt.warnings)
		hints := r.Inputs.Get("endpoints").AsArray().Get(0).AsMap().Get("hints").AsMap()
		if _, kept := hints.GetOk("forNodes"); kept != tt.kept {
			t.Errorf("%v: forNodes kept = %v, want %v", tt.server, kept, tt.kept)
		}
		if zones := hints.Get("forZones"); !zones.IsArray() || zones.AsArray().Len() != 1 {
			t.Errorf("%v: forZones = %v, want the one zone hint", tt.server, zones)
		}
	}
}

// TestMinorsOutsideTheWindow checks that a server older or newer than the window is
// judged by the rules of the closer end.
func TestMinorsOutsideTheWindow(t *testing.T) {
	t.Parallel()
	old := EndpointSlice(inputs(t, sliceOf("IPv6", "2001:db8:0:0:0:0:0:1")), Minor(28), Written{})
	if len(old.Failures) != 0 || !strings.Contains(strings.Join(old.Warnings, "\n"), "is refused from Kubernetes 1.33") {
		t.Errorf("1.28: %v, %v; want the non-canonical IPv6 address accepted with a warning, as 1.32 does", old.Failures, old.Warnings)
	}
	newer := EndpointSlice(inputs(t, sliceOf("IPv4", "010.0.0.1")), Minor(40), Written{})
	if len(newer.Failures) != 1 {
		t.Errorf("1.40: %v; want the leading zeros refused, as 1.37 does", newer.Failures)
	}
}

// TestUnchangedEndpointsAreKeptOnUpdate checks the update rule of 1.33 and later: a
// slice's endpoints (an Endpoints item's subsets) that the server would refuse now are
// kept when unchanged, as an older minor accepted them; changed, or on 1.32, they fail.
func TestUnchangedEndpointsAreKeptOnUpdate(t *testing.T) {
	t.Parallel()
	old := EndpointSlice(inputs(t, sliceOf("IPv4", "010.0.0.1")), Minor(35), Written{})
	if len(old.Failures) != 0 {
		t.Fatalf("1.35 refuses %v", old.Failures)
	}
	relabelled := inputs(t, `{"metadata":{"labels":{"team":"a"}},"addressType":"IPv4","endpoints":[{"addresses":["010.0.0.1"]}]}`)
	changed := inputs(t, slice4(`{"addresses":["010.0.0.1","10.0.0.2"]}`))
	for _, tt := range []struct {
		name     string
		news     property.Map
		minor    int
		failures int
	}{
		{"unchanged on 1.36", relabelled, 36, 0},
		{"unchanged on 1.37", relabelled, NewestMinor, 0},
		{"changed on 1.37", changed, NewestMinor, 1},
	} {
		r := SliceUpdate(EndpointSlice(tt.news, Minor(tt.minor), Written{}), old.Inputs, Minor(tt.minor))
		if len(r.Failures) != tt.failures {
			t.Errorf("%s: failures %v, want %d", tt.name, r.Failures, tt.failures)
		}
		if tt.failures == 0 && !strings.Contains(strings.Join(r.Warnings, "\n"), "keeps it in this update, as it is unchanged") {
			t.Errorf("%s: warnings %v; want the kept address said", tt.name, r.Warnings)
		}
	}

	// 1.32 has no such rule: what it refuses, it refuses in any update.
	v6 := inputs(t, sliceOf("IPv6", "::ffff:10.0.0.1"))
	if r := SliceUpdate(EndpointSlice(v6, Minor(OldestMinor), Written{}), v6, Minor(OldestMinor)); len(r.Failures) != 1 {
		t.Errorf("1.32: failures %v, want the IPv4-mapped address refused", r.Failures)
	}

	list := `{"items":[{"metadata":{"name":"a"},"subsets":[{"addresses":[{"ip":"010.0.0.1"}]}]},` +
		`{"metadata":{"name":"b","namespace":"default"},"subsets":[{"addresses":[{"ip":"010.0.0.2"}]}]}]}`
	previous := EndpointsList(inputs(t, list), "", Minor(35), Written{}).Inputs
	grown := `{"items":[{"metadata":{"name":"a","namespace":"default"},"subsets":[{"addresses":[{"ip":"010.0.0.1"}]}]},` +
		`{"metadata":{"name":"b"},"subsets":[{"addresses":[{"ip":"010.0.0.2"},{"ip":"10.0.0.3"}]}]},` +
		`{"metadata":{"name":"c"},"subsets":[{"addresses":[{"ip":"010.0.0.4"}]}]}]}`
	r := ListUpdate(EndpointsList(inputs(t, grown), "", Newest, Written{}), previous, "", Newest)
	var paths []string
	for _, f := range r.Failures {
		paths = append(paths, f.Path)
	}
	if want := "items[1].subsets[0].addresses[0].ip items[2].subsets[0].addresses[0].ip"; strings.Join(paths, " ") != want {
		t.Errorf("failures at %v; want %s (item a is unchanged, b changed, c new)", paths, want)
	}
}
