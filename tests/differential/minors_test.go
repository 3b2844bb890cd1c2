package differential_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// The verdicts that differ by minor (provider/validate/minors.go), as the cases that
// follow those rules document them. Each runs against both ends of the window; `make
// test-minors` runs them against every minor between as the oldest end.
var (
	// nonStandardIPv4: an IPv4 address with leading zeros in its octets (010.0.0.1) or
	// an IPv4-mapped IPv6 address (::ffff:10.0.0.1), in an Endpoints ip or an IPv4
	// slice's addresses. 1.32 accepts it (IsValidIP, IsValidIPv4Address); 1.33 to 1.35
	// accept it with a warning; from 1.36 the StrictIPCIDRValidation feature gate is on
	// and IsValidIPForLegacyField refuses it. Check warns wherever it is accepted.
	nonStandardIPv4 = fromMinor{32: acceptWarn, 36: reject}
	// nonCanonicalIPv6Slice: an IPv6 slice address not in RFC 5952 form
	// (2001:db8:0:0:0:0:0:1). 1.32's IsValidIPv6Address takes any form (Check warns);
	// from 1.33 pkg/apis/discovery/validation checks it with IsValidIP, which refuses it.
	nonCanonicalIPv6Slice = fromMinor{32: acceptWarn, 33: reject}
	// nodeHintsValid and nodeHintsInvalid: valid and invalid hints.forNodes. Before
	// 1.34 (nodeHintsFrom) the server drops them, so Check leaves them out with a
	// warning and the rest is accepted; from 1.34 they are kept and validated.
	nodeHintsValid   = fromMinor{32: acceptWarn, nodeHintsFrom: accept}
	nodeHintsInvalid = fromMinor{32: acceptWarn, nodeHintsFrom: reject}
)

// nonStandardIPCases are addresses in the forms whose verdict differs by minor, in
// every place the rule applies: an Endpoints item's addresses and notReadyAddresses,
// IPv4 slices (leading zeros, IPv4-mapped IPv6) and IPv6 slices (non-canonical forms).
// The basic forms are in sliceAddressCases and listCases.
func nonStandardIPCases(c *corpus) {
	for _, a := range []string{"10.0.0.010", "192.168.001.001", "::ffff:a00:1", "::FFFF:10.0.0.1"} {
		c.slice(nonStandardIPv4, "non-standard IPv4 "+a, v4(a))
		c.list(nonStandardIPv4, "non-standard ip "+a, listIP(a))
		c.list(nonStandardIPv4, "non-standard not-ready ip "+a,
			listSubsets(`[{"notReadyAddresses":[{"ip":`+q(a)+`}]}]`))
	}
	// Leading zeros or an IPv4-mapped form on an address that endpoints may not use
	// anyway: refused on every minor (from 1.36 for its form first).
	for _, a := range []string{"127.000.0.1", "169.254.001.1", "::ffff:127.0.0.1", "000.0.0.0"} {
		c.slice(reject, "IPv4 slice with "+q(a), v4(a))
		c.list(reject, "ip "+q(a), listIP(a))
	}
	c.slice(nonStandardIPv4, "non-standard IPv4 as the second address of the second endpoint",
		`{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]},{"addresses":["10.0.0.2","010.0.0.3"]}]}`)
	c.list(nonStandardIPv4, "non-standard ip in the second subset's not-ready addresses",
		listSubsets(`[{"addresses":[{"ip":"10.0.0.1"}]},{"notReadyAddresses":[{"ip":"10.0.0.2"},{"ip":"::ffff:10.0.0.3"}]}]`))
	c.list(nonStandardIPv4, "non-standard ip in the second item",
		`{"items":[{"metadata":{"name":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]},`+
			`{"metadata":{"name":"b"},"subsets":[{"addresses":[{"ip":"010.0.0.2"}]}]}]}`)
	c.list(nonStandardIPv4, "address both ready and not ready, both with leading zeros",
		listSubsets(`[{"addresses":[{"ip":"010.0.0.1"}],"notReadyAddresses":[{"ip":"010.0.0.1"}]}]`))

	for _, a := range []string{"2001:db8::0001", "2001:0db8::1", "2001:db8:0:0:1:0:0:1", "FD00::1",
		"2001:db8::ffff:10.0.0.1", "::10.0.0.1"} {
		c.slice(nonCanonicalIPv6Slice, "non-canonical IPv6 "+a, v6(a))
		c.list(acceptWarn, "non-canonical ip "+a, listIP(a))
	}
	c.list(acceptWarn, "non-canonical not-ready ip", listSubsets(`[{"notReadyAddresses":[{"ip":"2001:db8:0:0:0:0:0:9"}]}]`))
	c.slice(nonCanonicalIPv6Slice, "non-canonical IPv6 as the second address of the second endpoint",
		`{"addressType":"IPv6","endpoints":[{"addresses":["2001:db8::1"]},{"addresses":["2001:db8::2","2001:db8::0:3"]}]}`)
	// Non-canonical forms of addresses that endpoints may not use: refused on every
	// minor.
	for _, a := range []string{"fe80:0:0:0:0:0:0:1", "0:0:0:0:0:0:0:1", "FF02::1"} {
		c.slice(reject, "IPv6 slice with "+q(a), v6(a))
		c.list(reject, "ip "+q(a), listIP(a))
	}
}

// checkExpectations fails tb for a fromMinor that does not give a verdict from the
// oldest minor of the window, or names a minor outside it.
func checkExpectations(tb testing.TB, cases []testCase) {
	tb.Helper()
	for _, c := range cases {
		f, ok := c.want.(fromMinor)
		if !ok {
			continue
		}
		minors := slices.Sorted(maps.Keys(f))
		if len(minors) == 0 || minors[0] != validate.OldestMinor || minors[len(minors)-1] > validate.NewestMinor {
			tb.Errorf("corpus error: case %v documents %v; a fromMinor starts at 1.%d and ends by 1.%d",
				c, f, validate.OldestMinor, validate.NewestMinor)
		}
	}
}
