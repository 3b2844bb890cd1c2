package validate

import (
	"fmt"
	"sync"
)

// The rules that differ by Kubernetes minor, in one place. Every other rule in this
// package is the same on every minor of the window. Each rule below names the API
// server's source that decides it (k8s.io/kubernetes, at the minors given).
//
// Check learns the minor from a [Server], and asks only when an input's verdict
// depends on it: an IP address in a non-standard form, or node hints. So a program of
// plain addresses never makes the provider ask its cluster's version.

// The window of Kubernetes minors that the provider supports: both ends are tested
// (tests/differential, tests/lifecycle), and a minor outside it is judged by the
// rules of the closer end.
const (
	OldestMinor = 32
	NewestMinor = 37
)

// Server is the API server that the checked inputs will be written to, as far as
// Check needs to know it.
type Server interface {
	// Version returns the server's Kubernetes minor (32 for 1.32) and the version it
	// reports ("v1.32.13"), or "" for the version when the minor is a default rather
	// than a server's answer. Check calls it at most once per validation, and only
	// for an input whose verdict differs by minor.
	Version() (minor int, version string)
}

// Minor is a Server of a given minor with no version of its own: the default that
// Check applies where the cluster is not known (render mode, or a preview whose
// kubeconfig is not known yet), and what tests name.
type Minor int

// Version returns m and "".
func (m Minor) Version() (int, string) { return int(m), "" }

// Newest is the default Server: the newest minor of the window.
const Newest = Minor(NewestMinor)

// server is the Server of one validation, asked at most once.
type server struct {
	once    sync.Once
	s       Server
	minor   int
	version string
}

func newServer(s Server) *server {
	if s == nil {
		s = Newest
	}
	return &server{s: s}
}

// rulesMinor returns the minor whose rules apply: the server's, brought into the
// window. A nil server is Newest.
func (s *server) rulesMinor() int {
	if s == nil {
		return NewestMinor
	}
	s.once.Do(func() {
		s.minor, s.version = s.s.Version()
		if s.version == "" {
			s.version = fmt.Sprintf("1.%d", s.minor)
		}
	})
	return min(max(s.minor, OldestMinor), NewestMinor)
}

// named says which server a reason is about: "Kubernetes v1.32.13" for a server's
// answer, "Kubernetes 1.37" for a default.
func (s *server) named() string {
	if s == nil {
		return fmt.Sprintf("Kubernetes 1.%d", NewestMinor)
	}
	s.rulesMinor()
	return "Kubernetes " + s.version
}

// strictLegacyIPs reports whether Endpoints' ip and IPv4 slices' addresses refuse
// IPv4 octets with leading zeros and IPv4-mapped IPv6 addresses (KEP-4858). They do
// when the StrictIPCIDRValidation feature gate is on: beta and on by default from
// 1.36 (pkg/features/kube_features.go), read by IsValidIPForLegacyField
// (pkg/apis/core/validation). 1.33 to 1.35 accept them with a warning; 1.32 and older
// accept them through IsValidIP and IsValidIPv4Address.
func (s *server) strictLegacyIPs() bool { return s.rulesMinor() >= 36 }

// canonicalIPv6Slices reports whether an IPv6 slice's addresses must be in RFC 5952
// canonical form: from 1.33 pkg/apis/discovery/validation checks them with
// validation.IsValidIP; 1.32's IsValidIPv6Address takes any IPv6 form.
func (s *server) canonicalIPv6Slices() bool { return s.rulesMinor() >= 33 }

// nodeHints says what the server does with an endpoint's hints.forNodes: keeps and
// validates them (1.34 and later: the PreferSameTrafficDistribution feature gate is
// on, GA in 1.35), or drops them, with the reason ("" when kept). 1.33 has the field
// behind the gate, off by default, and its registry strategy drops it on create
// (dropDisabledFieldsOnCreate in pkg/registry/discovery/endpointslice); 1.32 does not
// know the field and drops it as unknown.
func (s *server) nodeHints() (dropped string) {
	switch minor := s.rulesMinor(); {
	case minor >= 34:
		return ""
	case minor == 33:
		return fmt.Sprintf("%s drops node hints: its PreferSameTrafficDistribution feature gate is off by default "+
			"(on from Kubernetes 1.34), so they are left out of the slice", s.named())
	default:
		return fmt.Sprintf("%s does not know node hints (new in Kubernetes 1.33, on by default from 1.34) and drops "+
			"them, so they are left out of the slice", s.named())
	}
}
