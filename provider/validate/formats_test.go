package validate

import (
	"net"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// ipSamples are addresses in every form the API server treats differently.
var ipSamples = []string{
	"10.0.0.1", "0.0.0.0", "127.0.0.1", "127.1.2.3", "169.254.0.1", "224.0.0.1", "224.0.0.255", "224.0.1.0",
	"239.1.1.1", "255.255.255.255", "010.0.0.1", "10.00.0.1", "1.2.3", "1.2.3.4.5", "256.1.1.1", "", " ",
	"10.0.0.1 ", "::ffff:10.0.0.1", "::ffff:127.0.0.1", "::ffff:0.0.0.0", "::ffff:a00:1", "2001:db8::1",
	"2001:DB8::1", "2001:db8:0:0:0:0:0:1", "2001:0db8::1", "::", "::1", "::2", "fe80::1", "febf::1", "fec0::1",
	"ff02::1", "ff12::1", "ff32::1", "ff01::1", "ff05::2", "fe80::1%eth0", "64:ff9b::1.2.3.4", "64:ff9b::102:304",
	"1::", "::1.2.3.4", "[::1]", "10.0.0.1/8", "a.b.c.d", "0x7f.0.0.1", "2001:db8::g", ":::", "1:2:3:4:5:6:7:8",
	"1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::", "::ffff:010.0.0.1", "0:0:0:0:0:ffff:10.0.0.1",
}

// serverAccepts is what the API server of the minor decides for an address of the
// given form, from its own functions (k8s.io/apimachinery, whose IsValidIPForLegacyField
// takes the StrictIPCIDRValidation gate as an argument) and the range rules of its
// ValidateEndpointIP (which lives in k8s.io/kubernetes, written out here). 1.32's
// IsValidIPv4Address and IsValidIPv6Address, since replaced, are written out too.
func serverAccepts(minor int, kind ipKind, s string) bool {
	var errs field.ErrorList
	strict := minor >= 36
	ip := netutils.ParseIPSloppy(s)
	switch {
	case minor <= 32 && kind == legacyIPv4:
		if ip == nil || ip.To4() == nil {
			return false
		}
	case minor <= 32 && kind == strictIPv6:
		if ip == nil || ip.To4() != nil {
			return false
		}
	case kind == legacyIP:
		errs = validation.IsValidIPForLegacyField(field.NewPath("ip"), s, strict, nil)
	case kind == legacyIPv4:
		errs = validation.IsValidIPForLegacyField(field.NewPath("ip"), s, strict, nil)
		if len(errs) == 0 && !netutils.IsIPv4String(s) {
			return false
		}
	case kind == strictIPv6:
		errs = validation.IsValidIP(field.NewPath("ip"), s)
		if len(errs) == 0 && !netutils.IsIPv6String(s) {
			return false
		}
	}
	if len(errs) > 0 {
		return false
	}
	return ip != nil && !ip.IsUnspecified() && !ip.IsLoopback() && !ip.IsLinkLocalUnicast() && !ip.IsLinkLocalMulticast()
}

func checkIP(kind ipKind, s string, secret bool) *checker { return checkIPOn(Newest, kind, s, secret) }

func checkIPOn(srv Server, kind ipKind, s string, secret bool) *checker {
	c := &checker{server: newServer(srv)}
	v := property.New(s).WithSecret(secret)
	c.checkEndpointIP(node{path: path{}.key("ip"), v: v, secret: secret}, kind)
	return c
}

// TestEndpointIPMatchesServer holds Check's verdict on every sample address, in every
// form, to the server's of each minor of the window; and from 1.33, where the server
// warns of non-standard addresses, Check's warnings too. (1.32 does not warn; Check
// does, of what later minors refuse.)
func TestEndpointIPMatchesServer(t *testing.T) {
	t.Parallel()
	for minor := OldestMinor; minor <= NewestMinor; minor++ {
		for _, s := range ipSamples {
			for _, kind := range []ipKind{legacyIP, legacyIPv4, strictIPv6} {
				c := checkIPOn(Minor(minor), kind, s, false)
				if got, want := len(c.failures) == 0, serverAccepts(minor, kind, s); got != want {
					t.Errorf("1.%d: %q as %v: Check accepts = %v, the server accepts = %v (failures %v)",
						minor, s, kind, got, want, c.failures)
				}
				if minor >= 33 && kind != strictIPv6 && len(c.failures) == 0 {
					serverWarns := len(validation.GetWarningsForIP(field.NewPath("ip"), s)) > 0
					if got := len(c.warnings) > 0; got != serverWarns {
						t.Errorf("1.%d: %q as %v: Check warns = %v, the server warns = %v (%v)",
							minor, s, kind, got, serverWarns, c.warnings)
					}
				}
			}
		}
	}
}

func FuzzEndpointIP(f *testing.F) {
	for _, s := range ipSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, minor := range []int{OldestMinor, 33, 35, 36, NewestMinor} {
			for _, kind := range []ipKind{legacyIP, legacyIPv4, strictIPv6} {
				got := len(checkIPOn(Minor(minor), kind, s, false).failures) == 0
				if want := serverAccepts(minor, kind, s); got != want {
					t.Errorf("1.%d: %q as %v: Check accepts = %v, the server accepts = %v", minor, s, kind, got, want)
				}
			}
		}
	})
}

func TestForbiddenEndpointIPRanges(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"127.0.0.1":   "loopback",
		"::1":         "loopback",
		"169.254.1.1": "link-local",
		"fe80::1":     "link-local",
		"224.0.0.1":   "link-local multicast",
		"ff02::1":     "link-local multicast",
		"0.0.0.0":     "unspecified",
		"::":          "unspecified",
		"10.0.0.1":    "",
		"224.0.1.1":   "",
		"ff05::1":     "",
	}
	for s, want := range tests {
		got := forbiddenEndpointIP(net.ParseIP(s))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("forbiddenEndpointIP(%s) = %q, want it to mention %q", s, got, want)
		}
	}
}

func TestSecretIPNotShown(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"127.0.0.1", "010.0.0.1", "2001:DB8::1", "bad"} {
		for _, kind := range []ipKind{legacyIP, legacyIPv4, strictIPv6} {
			c := checkIP(kind, s, true)
			for _, n := range append(c.failures, c.warnings...) {
				if strings.Contains(n.text, s) || strings.Contains(n.text, "10.0.0.1") || strings.Contains(n.text, "2001:db8::1") {
					t.Errorf("%q as %v: message shows the secret: %s", s, kind, n.text)
				}
			}
		}
	}
}

func TestIANAServiceName(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"http": true, "HTTP": true, "h2c": true, "x-y": true, "a1": true, strings15: true,
		"": false, "1234": false, "-a": false, "a-": false, "a--b": false, "a_b": false, "a.b": false, strings15 + "x": false,
	} {
		if got := isIANAServiceName(s); got != want {
			t.Errorf("isIANAServiceName(%q) = %v, want %v", s, got, want)
		}
	}
}

const strings15 = "abcdefghijklmno"

func (k ipKind) String() string {
	return [...]string{"legacy IP", "legacy IPv4", "strict IPv6"}[k]
}
