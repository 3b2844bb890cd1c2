package validate

import (
	"strings"
	"sync/atomic"
	"testing"
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
			EndpointSlice(inputs(t, tt.doc), s)
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
		r := EndpointSlice(inputs(t, nine), tt.server)
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
	old := EndpointSlice(inputs(t, sliceOf("IPv6", "2001:db8:0:0:0:0:0:1")), Minor(28))
	if len(old.Failures) != 0 || !strings.Contains(strings.Join(old.Warnings, "\n"), "is refused from Kubernetes 1.33") {
		t.Errorf("1.28: %v, %v; want the non-canonical IPv6 address accepted with a warning, as 1.32 does", old.Failures, old.Warnings)
	}
	newer := EndpointSlice(inputs(t, sliceOf("IPv4", "010.0.0.1")), Minor(40))
	if len(newer.Failures) != 1 {
		t.Errorf("1.40: %v; want the leading zeros refused, as 1.37 does", newer.Failures)
	}
}
