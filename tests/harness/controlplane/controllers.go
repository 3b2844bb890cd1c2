package controlplane

import (
	"bytes"
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
)

// controllersSyncedLogs are, for a control plane with every controller, the
// kube-controller-manager log lines that say the controllers acting on Services,
// Endpoints and EndpointSlices have synced their caches: each inner list holds
// the forms one of them may take.
var controllersSyncedLogs = [][]string{
	{`"Caches are synced" controller="endpoint"`},
	{`"Caches are synced" controller="endpoint_slice"`},
	{`"Caches are synced" controller="endpoint_slice_mirroring"`},
}

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
