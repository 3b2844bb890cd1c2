package controlplane

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	// haEtcdMembers and haAPIServers are the sizes of an HA control plane.
	haEtcdMembers = 3
	haAPIServers  = 2
)

// EnvSkipHA is the environment variable that, set to 1, makes SkipHAIfAsked skip the
// tests against an HA control plane, on a machine too slow for them; nothing else
// skips them.
const EnvSkipHA = "PULUMI_ENDPOINTS_SKIP_HA"

// SkipHAIfAsked skips t when EnvSkipHA is 1.
func SkipHAIfAsked(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvSkipHA) == "1" {
		t.Skip(EnvSkipHA + "=1: the tests against an HA control plane are skipped")
	}
}

// EtcdMember names the i-th etcd member (0, 1 or 2) of an HA control plane, for
// Kill and Restart.
func EtcdMember(i int) Component { return Component("etcd-" + strconv.Itoa(i)) }

// APIServerN names the i-th API server (0 or 1) of an HA control plane, for Kill
// and Restart.
func APIServerN(i int) Component { return Component("kube-apiserver-" + strconv.Itoa(i)) }

// HA is a highly available control plane: a cluster of three etcd members, two API
// servers storing into it (each given every member's client URL), a TCP load
// balancer in front of the API servers (round robin over those whose /readyz
// answers 200), and kube-controller-manager. Clients, the controller manager among
// them, reach the API servers only through the load balancer: Kubeconfig,
// KubeconfigPath, RESTConfig and Clientset name it. Both API servers serve one
// certificate (for 127.0.0.1, from a CA of the control plane's own, which the
// kubeconfig trusts) and sign ServiceAccount tokens with one key, so which one
// answers makes no difference to a client. The controller manager runs with leader
// election off: it is the only one.
//
// The methods of the embedded ControlPlane work on it, but for StopAPIServer and
// StartAPIServer, which know one API server only; Kill takes EtcdMember and
// APIServerN.
type HA struct {
	*ControlPlane
	lb *LoadBalancer

	etcdClientURLs []string
	apiServerAddrs []string // 127.0.0.1:<port>
	tlsConfig      *tls.Config
}

// StartHAT starts an HA control plane for t and stops it when t and its subtests
// have finished. It fails t if the control plane cannot start.
func StartHAT(t testing.TB, opts Options) *HA {
	t.Helper()
	h, err := StartHA(t.Context(), opts)
	if err != nil {
		t.Fatalf("start an HA control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := h.Stop(); err != nil {
			t.Errorf("stop the HA control plane: %v", err)
		}
	})
	return h
}

// StartHA starts an HA control plane and returns once the etcd members are healthy,
// both API servers ready behind the load balancer and the controllers synced. ctx
// bounds the start-up only. On error nothing is left running.
func StartHA(ctx context.Context, opts Options) (_ *HA, err error) {
	c, bins, portNums, err := newControlPlane(2*haEtcdMembers+haAPIServers, opts)
	if err != nil {
		return nil, err
	}
	h := &HA{ControlPlane: c}
	defer func() {
		if err != nil {
			err = errors.Join(err, h.Stop())
		}
	}()
	if err := h.startEtcdCluster(ctx, bins.etcd, portNums[:2*haEtcdMembers], opts); err != nil {
		return nil, err
	}
	if err := h.startAPIServers(ctx, bins.apiServer, portNums[2*haEtcdMembers:], opts.APIServerArgs, opts.Output); err != nil {
		return nil, err
	}
	if err := h.readVersion(ctx); err != nil {
		return nil, err
	}
	if opts.NoControllerManager {
		return h, nil
	}
	if err := h.startControllerManager(ctx, bins.controllerManager, opts); err != nil {
		return nil, err
	}
	return h, nil
}

// Stop stops the processes (see ControlPlane.Stop), then the load balancer.
func (h *HA) Stop() error {
	err := h.ControlPlane.Stop()
	if h.lb != nil {
		err = errors.Join(err, h.lb.Close())
	}
	return err
}

// startEtcdCluster starts the three members at once (each waits for the others
// to form the cluster), with ports[2i] and ports[2i+1] as member i's client and
// peer ports, and waits until each is healthy.
func (h *HA) startEtcdCluster(ctx context.Context, path string, ports []int, opts Options) error {
	var peers []string
	for i := range haEtcdMembers {
		h.etcdClientURLs = append(h.etcdClientURLs, "http://127.0.0.1:"+strconv.Itoa(ports[2*i]))
		peers = append(peers, fmt.Sprintf("%s=http://127.0.0.1:%d", EtcdMember(i), ports[2*i+1]))
	}
	procs := make([]*process, haEtcdMembers)
	for i := range haEtcdMembers {
		name := string(EtcdMember(i))
		_, peerURL, _ := strings.Cut(peers[i], "=")
		args := etcdArgs(name, filepath.Join(h.dir, name), h.etcdClientURLs[i], peerURL,
			strings.Join(peers, ","), opts.DurableEtcd)
		p, err := h.start(name, path, append(args, "--initial-cluster-state=new"), opts.Output)
		if err != nil {
			return err
		}
		procs[i] = p
	}
	for i, p := range procs {
		if err := waitEtcdHealthy(ctx, p, h.etcdClientURLs[i]); err != nil {
			return err
		}
	}
	return nil
}

// startAPIServers starts the two API servers on ports, with one token file,
// ServiceAccount key and serving certificate, and the load balancer in front of
// them, and waits until both are ready behind it.
func (h *HA) startAPIServers(ctx context.Context, path string, ports []int, extra []string, out io.Writer) error {
	token, tokenFile, keyFile, err := h.writeCredentials()
	if err != nil {
		return err
	}
	ca, certFile, keyPEMFile, err := h.writeServingCert()
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	h.tlsConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	for i, port := range ports {
		args := append(apiServerArgs(strings.Join(h.etcdClientURLs, ","), port, tokenFile, keyFile),
			"--tls-cert-file="+certFile,
			"--tls-private-key-file="+keyPEMFile,
		)
		args = append(args, extra...)
		if _, err := h.start(string(APIServerN(i)), path, args, out); err != nil {
			return err
		}
		h.apiServerAddrs = append(h.apiServerAddrs, "127.0.0.1:"+strconv.Itoa(port))
	}
	if h.lb, err = StartLoadBalancer(h.apiServerAddrs, h.readyz); err != nil {
		return err
	}
	h.server = "https://" + h.lb.Addr()
	h.kubeconfigPath = filepath.Join(h.dir, "admin.kubeconfig")
	if err := h.setAdmin(ca, token); err != nil {
		return err
	}
	for i := range ports {
		if err := h.waitBehindLB(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// readyz checks the API server at addr (host:port) by its /readyz, which the
// system:public-info-viewer role lets anyone read.
func (h *HA) readyz(ctx context.Context, addr string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/readyz", nil)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: h.tlsConfig, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("GET https://%s/readyz: status %d: %s", addr, resp.StatusCode, bytes.TrimSpace(body))
	}
	return nil
}

// waitBehindLB waits until API server i is ready and the load balancer counts it
// healthy.
func (h *HA) waitBehindLB(ctx context.Context, i int) error {
	addr := h.apiServerAddrs[i]
	p, err := h.proc(APIServerN(i))
	if err != nil {
		return err
	}
	return waitReady(ctx, p, "GET https://"+addr+"/readyz and the load balancer to count it healthy",
		func(ctx context.Context) error {
			if err := h.readyz(ctx, addr); err != nil {
				return err
			}
			for _, a := range h.lb.Healthy() {
				if a == addr {
					return nil
				}
			}
			return errors.New("the load balancer does not count it healthy yet")
		})
}

// writeServingCert writes a new CA and a serving certificate it signs for
// 127.0.0.1 and localhost, and returns the CA (PEM) and the certificate's and
// key's files.
func (h *HA) writeServingCert() (ca []byte, certFile, keyFile string, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, "", "", fmt.Errorf("generate the serving CA key: %w", err)
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "controlplane-serving-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, "", "", fmt.Errorf("create the serving CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, "", "", fmt.Errorf("generate the serving key: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, caTemplate, &key.PublicKey, caKey)
	if err != nil {
		return nil, "", "", fmt.Errorf("create the serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, "", "", fmt.Errorf("encode the serving key: %w", err)
	}
	ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	certFile, keyFile = filepath.Join(h.dir, "serving.crt"), filepath.Join(h.dir, "serving.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return nil, "", "", fmt.Errorf("write the serving certificate: %w", err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return nil, "", "", fmt.Errorf("write the serving key: %w", err)
	}
	return ca, certFile, keyFile, nil
}
