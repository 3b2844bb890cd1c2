package validate

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// The formats that kube-apiserver checks, with the reasons Check gives. The
// predicates are the API server's own (k8s.io/apimachinery), so they agree with it
// exactly; the reasons are written for people.

const (
	dnsLabelRule = "must be a DNS label (RFC 1123): lowercase alphanumerics or '-', " +
		"starting and ending with an alphanumeric, at most 63 characters"
	dnsSubdomainRule = "must be a DNS subdomain (RFC 1123): lowercase alphanumerics, '-' or '.', " +
		"starting and ending with an alphanumeric, at most 253 characters"
	dnsSubdomainPrefixRule = "must be the start of a DNS subdomain (RFC 1123): lowercase alphanumerics, '-' or '.', " +
		"starting with an alphanumeric, at most 253 characters; a trailing '-' is allowed"
	generatedNameRule = "must make valid object names: the API server keeps its first 58 characters and appends " +
		"5 random lowercase letters or digits, and the result must be a DNS subdomain (RFC 1123: lowercase " +
		"alphanumerics, '-' or '.', each '.'-separated part starting and ending with an alphanumeric)"
	qualifiedNameRule = "must be a qualified name: an optional DNS subdomain prefix and '/', then a name of at most 63 " +
		"alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric (e.g. 'example.com/MyName')"
	labelValueRule = "must be empty or at most 63 alphanumerics, '-', '_' or '.', " +
		"starting and ending with an alphanumeric"
	fqdnRule = "must be a fully qualified domain name: at least two DNS labels (lowercase alphanumerics or '-', " +
		"starting and ending with an alphanumeric, at most 63 characters each) separated by '.', " +
		"at most 253 characters, with an optional trailing '.'"
)

func isDNSLabel(s string) bool     { return len(validation.IsDNS1123Label(s)) == 0 }
func isDNSSubdomain(s string) bool { return len(validation.IsDNS1123Subdomain(s)) == 0 }
func isQualifiedName(s string) bool {
	return len(validation.IsQualifiedName(s)) == 0
}
func isLabelValue(s string) bool { return len(validation.IsValidLabelValue(s)) == 0 }

// isNamePrefix applies the server's check of metadata.generateName (which masks a
// trailing '-' before checking the DNS subdomain).
func isNamePrefix(s string) bool { return len(apimachineryvalidation.NameIsDNSSubdomain(s, true)) == 0 }

func isFQDN(s string) bool {
	return len(validation.IsFullyQualifiedDomainName(field.NewPath("address"), s)) == 0
}

// checkDNSLabel fails n unless it is a known DNS label.
func (c *checker) checkDNSLabel(n node) {
	if s, ok := n.str(); ok && !isDNSLabel(s) {
		c.reject(n.path, "%s (got %s)", dnsLabelRule, n.quote(s))
	}
}

// checkDNSSubdomain fails n unless it is a known DNS subdomain.
func (c *checker) checkDNSSubdomain(n node) {
	if s, ok := n.str(); ok && !isDNSSubdomain(s) {
		c.reject(n.path, "%s (got %s)", dnsSubdomainRule, n.quote(s))
	}
}

// ipKind is the address form an IP field accepts.
type ipKind int

const (
	// legacyIP is the validation of Endpoints' ip: any form that Kubernetes' sloppy
	// parser reads, but for what the server's minor refuses (see strictLegacyIPs), with
	// a warning for non-standard forms.
	legacyIP ipKind = iota
	// legacyIPv4 is legacyIP that must also be an IPv4 address: the addresses of IPv4
	// slices.
	legacyIPv4
	// strictIPv6 is the validation of IPv6 slices: an IPv6 address, in canonical form
	// (RFC 5952) where the server's minor requires it (see canonicalIPv6Slices).
	strictIPv6
)

// checkEndpointIP checks an endpoint address the way the API server of c's minor does
// for the given form, then rejects the ranges that endpoints may not use. The minor is
// asked only for an address in a non-standard form.
func (c *checker) checkEndpointIP(n node, kind ipKind) {
	s, ok := n.str()
	if !ok {
		return
	}
	ip := netutils.ParseIPSloppy(s)
	if ip == nil {
		c.reject(n.path, "%s is not a valid IP address (e.g. 10.9.8.7 or 2001:db8::ffff)", n.quote(s))
		return
	}
	addr, err := netip.ParseAddr(s)
	nonStandard := err != nil || addr.Is4In6()
	switch kind {
	case legacyIP, legacyIPv4:
		if nonStandard && c.server.strictLegacyIPs() {
			if err != nil {
				c.reject(n.path, "%s must not have leading zeros in its octets (%s refuses them): use %s",
					n.show(s), c.server.named(), n.quote(ip.String()))
			} else {
				c.reject(n.path, "%s must not be an IPv4-mapped IPv6 address (%s refuses them): use %s",
					n.show(s), c.server.named(), n.quote(ip.String()))
			}
			return
		}
		if kind == legacyIPv4 && ip.To4() == nil {
			c.reject(n.path, "%s is not an IPv4 address, as the slice's addressType IPv4 requires", n.show(s))
			return
		}
		if nonStandard {
			c.warn(n.path, "non-standard IP address %s is refused from Kubernetes 1.36: use %s",
				n.quote(s), n.quote(ip.String()))
		} else if addr.Is6() && addr.String() != s {
			c.warn(n.path, "IPv6 address %s should be in RFC 5952 canonical form (%s)", n.quote(s), n.quote(addr.String()))
		}
	case strictIPv6:
		if addr.Is4In6() {
			c.reject(n.path, "%s is an IPv4-mapped IPv6 address, which an IPv6 slice may not hold", n.show(s))
			return
		}
		if ip.To4() != nil {
			c.reject(n.path, "%s is not an IPv6 address, as the slice's addressType IPv6 requires", n.show(s))
			return
		}
		if ip.String() != s {
			if c.server.canonicalIPv6Slices() {
				c.reject(n.path, "%s must be written in canonical form (RFC 5952): %s", n.show(s), n.quote(ip.String()))
				return
			}
			c.warn(n.path, "IPv6 address %s is refused from Kubernetes 1.33, which requires the canonical form "+
				"(RFC 5952): use %s", n.quote(s), n.quote(ip.String()))
		}
	}
	if why := forbiddenEndpointIP(ip); why != "" {
		c.reject(n.path, "%s is %s, which endpoints may not use", n.show(s), why)
	}
}

// forbiddenEndpointIP names the range of ip when endpoints may not use it, as the API
// server's ValidateEndpointIP decides (the Go standard library's classification).
func forbiddenEndpointIP(ip net.IP) string {
	switch {
	case ip.IsUnspecified():
		return "the unspecified address (0.0.0.0 or ::)"
	case ip.IsLoopback():
		return "a loopback address (127.0.0.0/8 or ::1)"
	case ip.IsLinkLocalUnicast():
		return "a link-local address (169.254.0.0/16 or fe80::/10)"
	case ip.IsLinkLocalMulticast():
		return "a link-local multicast address (224.0.0.0/24, or IPv6 multicast with link-local scope such as ff02::/16)"
	}
	return ""
}

// checkFQDN fails n unless it is a fully qualified domain name.
func (c *checker) checkFQDN(n node) {
	if s, ok := n.str(); ok && !isFQDN(s) {
		c.reject(n.path, "%s (got %s)", fqdnRule, n.quote(s))
	}
}

// checkAppProtocol checks an appProtocol: the server requires a qualified name; the
// specification's finer rules (IANA service names, the kubernetes.io/ names) are not
// enforced by the server and draw warnings.
func (c *checker) checkAppProtocol(n node) {
	s, ok := n.str()
	if !ok {
		return
	}
	if !isQualifiedName(s) {
		c.reject(n.path, "%s (got %s)", qualifiedNameRule, n.quote(s))
		return
	}
	prefix, name, prefixed := strings.Cut(s, "/")
	switch {
	case prefixed && prefix == "kubernetes.io" && name != "h2c" && name != "ws" && name != "wss":
		c.warn(n.path, "%s is not a protocol that Kubernetes defines: the kubernetes.io/ prefix is reserved for "+
			"kubernetes.io/h2c, kubernetes.io/ws and kubernetes.io/wss; use a domain of your own for other protocols",
			n.quote(s))
	case !prefixed && !isIANAServiceName(s):
		c.warn(n.path, "%s is not an IANA service name (RFC 6335: at most 15 letters, digits and '-', with a letter, "+
			"no '-' at either end and no '--'): names without a prefix are reserved for IANA standard service names; "+
			"use <domain>/<name> for other protocols", n.quote(s))
	}
}

// isIANAServiceName reports whether s has the syntax of an RFC 6335 service name.
// (The registry itself is not checked.)
func isIANAServiceName(s string) bool {
	if len(s) == 0 || len(s) > 15 || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	letter := false
	for i := range len(s) {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9', c == '-':
		default:
			return false
		}
	}
	return letter
}

// int32Value returns n's integer value when it is known and fits the API's 32-bit
// port fields; it fails n when it does not fit, since the server cannot decode it.
func (c *checker) int32Value(n node) (int64, bool) {
	f, ok := n.integer()
	if !ok {
		return 0, false
	}
	if f < -(1<<31) || f > (1<<31)-1 {
		c.reject(n.path, "must be a 32-bit integer (between -2147483648 and 2147483647; got %s)", n.show(fmt.Sprint(f)))
		return 0, false
	}
	return int64(f), true
}
