package dataplane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
)

// Resolver returns a resolver that asks CoreDNS (DNSAddr).
func Resolver() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, DNSAddr)
		},
	}
}

// ServiceName returns the DNS name of Service name in namespace, with the
// hostname of one of its endpoints in front when hostname is not empty:
// <hostname>.<name>.<namespace>.svc.cluster.local.
func ServiceName(hostname, name, namespace string) string {
	fqdn := name + "." + namespace + ".svc." + ClusterDomain + "."
	if hostname != "" {
		fqdn = hostname + "." + fqdn
	}
	return fqdn
}

// Lookup asks CoreDNS for the addresses of family (A or AAAA records) of name and
// returns them sorted; a name with none of that family has none, not an error.
func Lookup(ctx context.Context, name string, family Family) ([]netip.Addr, error) {
	network := "ip4"
	if family == IPv6 {
		network = "ip6"
	}
	addrs, err := Resolver().LookupNetIP(ctx, network, name)
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look %s up (%s) with CoreDNS: %w", name, network, err)
	}
	for i, a := range addrs {
		addrs[i] = a.Unmap()
	}
	slices.SortFunc(addrs, netip.Addr.Compare)
	return addrs, nil
}
