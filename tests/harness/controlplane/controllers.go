package controlplane

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serviceAccountKeyFile is the RSA key that signs ServiceAccount tokens: the API
// server checks them with it and the controller manager's token controller signs
// with it.
func (c *ControlPlane) serviceAccountKeyFile() string {
	return filepath.Join(c.dir, "service-account.key")
}

// allControllersArgs turns the controller manager's arguments for the garbage
// collector and namespace controllers into those for every default controller,
// with what they need from this control plane: the key that signs ServiceAccount
// tokens (the same the API server verifies them with), the API server's CA, which
// the root-CA publisher puts into every namespace's kube-root-ca.crt, and a CA of
// its own for signing certificate requests. Controllers a cluster without nodes or
// cloud provider does not run stay off, as they would there: node IPAM (no
// --allocate-node-cidrs), the cloud controllers, and the ones off by default.
func (c *ControlPlane) allControllersArgs(args []string) ([]string, error) {
	caFile := filepath.Join(c.dir, "ca.crt")
	if err := os.WriteFile(caFile, c.caData, 0o600); err != nil {
		return nil, fmt.Errorf("write the API server's CA for the controller manager: %w", err)
	}
	signingCert, signingKey, err := c.writeSigningCA()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(args)+4)
	for _, a := range args {
		if strings.HasPrefix(a, "--controllers=") {
			a = "--controllers=*"
		}
		out = append(out, a)
	}
	return append(out,
		"--service-account-private-key-file="+c.serviceAccountKeyFile(),
		"--root-ca-file="+caFile,
		"--cluster-signing-cert-file="+signingCert,
		"--cluster-signing-key-file="+signingKey,
	), nil
}

// writeSigningCA writes a new CA certificate and key with which the controller
// manager signs approved CertificateSigningRequests (the kubernetes.io signers).
func (c *ControlPlane) writeSigningCA() (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", fmt.Errorf("generate the cluster signing key: %w", err)
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "controlplane-cluster-signing-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return "", "", fmt.Errorf("create the cluster signing certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", "", fmt.Errorf("encode the cluster signing key: %w", err)
	}
	certFile, keyFile = filepath.Join(c.dir, "cluster-signing.crt"), filepath.Join(c.dir, "cluster-signing.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return "", "", fmt.Errorf("write the cluster signing certificate: %w", err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", fmt.Errorf("write the cluster signing key: %w", err)
	}
	return certFile, keyFile, nil
}

// probeNamespacePrefix starts the name of the namespace in which Start, with every
// controller, waits for the endpoints, EndpointSlice and mirroring controllers.
const probeNamespacePrefix = "controlplane-ready-"

// waitEndpointControllers waits until the endpoints, EndpointSlice and mirroring
// controllers act, or p, the controller manager, exits: in a namespace of its own it
// creates a Service with a selector, for which the first two write Endpoints and a
// slice, and a selectorless Service with Endpoints, which the third mirrors into a
// slice; then it deletes the namespace. Their log no longer tells (from 1.37 the
// "Caches are synced" lines of their informers name no controller), and what they
// do is what the tests wait for.
func (c *ControlPlane) waitEndpointControllers(ctx context.Context, p *process) error {
	cs := c.clientset
	created, err := cs.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: probeNamespacePrefix}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create a namespace to see the controllers act in: %w", err)
	}
	ns := created.Name
	port := []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	services := []*corev1.Service{
		{ObjectMeta: metav1.ObjectMeta{Name: "selected", Namespace: ns},
			Spec: corev1.ServiceSpec{Ports: port, Selector: map[string]string{"app": "selected"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "mirrored", Namespace: ns}, Spec: corev1.ServiceSpec{Ports: port}},
	}
	for _, svc := range services {
		if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create Service %s/%s: %w", ns, svc.Name, err)
		}
	}
	endpoints := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "mirrored", Namespace: ns},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "192.0.2.10"}},
			Ports:     []corev1.EndpointPort{{Name: "http", Port: 80}},
		}},
	}
	if _, err := cs.CoreV1().Endpoints(ns).Create(ctx, endpoints, metav1.CreateOptions{}); err != nil { //nolint:staticcheck // the mirroring controller reads v1 Endpoints
		return fmt.Errorf("create Endpoints %s/mirrored: %w", ns, err)
	}
	slicesBy := map[string]string{"selected": "endpointslice-controller.k8s.io", "mirrored": "endpointslicemirroring-controller.k8s.io"}
	err = waitReady(ctx, p, "the endpoints, EndpointSlice and mirroring controllers to write the Endpoints and slices of two Services in namespace "+ns,
		func(ctx context.Context) error {
			if _, err := cs.CoreV1().Endpoints(ns).Get(ctx, "selected", metav1.GetOptions{}); err != nil { //nolint:staticcheck // what the endpoints controller writes
				return fmt.Errorf("no Endpoints of Service selected from the endpoints controller: %w", err)
			}
			for svc, manager := range slicesBy {
				l, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
					LabelSelector: discoveryv1.LabelServiceName + "=" + svc + "," + discoveryv1.LabelManagedBy + "=" + manager,
				})
				if err != nil {
					return err
				}
				if len(l.Items) == 0 {
					return fmt.Errorf("no slice of Service %s from %s yet", svc, manager)
				}
			}
			return nil
		})
	if err != nil {
		return err
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete namespace %s: %w", ns, err)
	}
	return nil
}

// logSays tells whether log holds, for every group of lines, one of them.
func logSays(log []byte, groups [][]string) error {
	for _, alternatives := range groups {
		found := false
		for _, line := range alternatives {
			found = found || bytes.Contains(log, []byte(line))
		}
		if !found {
			return errors.New("not yet: no " + strconv.Quote(alternatives[0]))
		}
	}
	return nil
}
