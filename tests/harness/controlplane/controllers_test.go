package controlplane_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// klogError matches a klog error line ("E1123 12:00:00.000000 ...").
var klogError = regexp.MustCompile(`(?m)^E\d{4} .*$`)

// startupNoise are error lines that a kube-controller-manager logs at start-up
// whatever it is given, and that say nothing about its controllers: from 1.37 its
// metrics options (component-base) read an allow-list manifest when no
// --allow-metric-labels is given, and log this when none is named either.
var startupNoise = []string{"] The manifest file is empty, ignoring."}

// controllerErrors returns the error lines of a controller manager's log, but for
// startupNoise.
func controllerErrors(log []byte) [][]byte {
	var errs [][]byte
	for _, line := range klogError.FindAll(log, -1) {
		if !slices.ContainsFunc(startupNoise, func(noise string) bool { return bytes.HasSuffix(line, []byte(noise)) }) {
			errs = append(errs, line)
		}
	}
	return errs
}

// TestAllControllers starts a control plane with every default controller and shows
// that the controllers a real cluster runs work on it: the service-account and
// root-CA controllers (which need the signing key and the CA the API server uses),
// the endpoints controller, the EndpointSlice controller and the mirroring
// controller, and that the controller manager logs no errors doing so.
func TestAllControllers(t *testing.T) {
	t.Parallel()
	began := time.Now()
	cp := controlplane.StartTWith(t, controlplane.Options{AllControllers: true})
	t.Logf("control plane with every controller started in %v", time.Since(began).Round(time.Millisecond))
	cs := cp.Clientset()
	ns := cp.Namespace(t, "test")
	ctx := t.Context()

	// The service account controller gives the namespace its default ServiceAccount,
	// and the root-CA publisher the API server's CA.
	waitFor(t, "ServiceAccount "+ns+"/default", gcTimeout, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, ignoreNotFound(err)
	})
	var rootCA *corev1.ConfigMap
	waitFor(t, "ConfigMap "+ns+"/kube-root-ca.crt", gcTimeout, func(ctx context.Context) (bool, error) {
		var err error
		rootCA, err = cs.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return err == nil, ignoreNotFound(err)
	})
	if ca := rootCA.Data["ca.crt"]; ca == "" || strings.TrimSpace(ca) != strings.TrimSpace(string(cp.RESTConfig().CAData)) {
		t.Errorf("kube-root-ca.crt holds %q, want the API server's CA (the one the admin kubeconfig trusts)", ca)
	}

	// The token controller signs legacy ServiceAccount token Secrets with the key the
	// API server verifies them with: the token authenticates.
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy-token", Namespace: ns,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}},
		Type: corev1.SecretTypeServiceAccountToken,
	}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a token Secret: %v", err)
	}
	var token []byte
	waitFor(t, "the token controller to fill Secret "+ns+"/legacy-token", gcTimeout, func(ctx context.Context) (bool, error) {
		s, err := cs.CoreV1().Secrets(ns).Get(ctx, "legacy-token", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		token = s.Data[corev1.ServiceAccountTokenKey]
		return len(token) > 0, nil
	})
	config := cp.RESTConfig()
	config.BearerToken = string(token)
	tokenClient, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	review, err := tokenClient.AuthenticationV1().SelfSubjectReviews().Create(ctx,
		&authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if want := "system:serviceaccount:" + ns + ":default"; err != nil || review.Status.UserInfo.Username != want {
		t.Errorf("the token the controller signed: review = %+v, %v; want it to authenticate as %s", review, err, want)
	}

	// Endpoints of a selectorless Service are mirrored into a slice; a Service with a
	// selector gets Endpoints and a slice from the endpoints and EndpointSlice
	// controllers.
	for _, svc := range []*corev1.Service{
		{ObjectMeta: metav1.ObjectMeta{Name: "mirrored", Namespace: ns},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "selected", Namespace: ns},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}, Selector: map[string]string{"app": "x"}}},
	} {
		if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create Service %s: %v", svc.Name, err)
		}
	}
	endpoints := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "mirrored", Namespace: ns},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}},
			Ports:     []corev1.EndpointPort{{Port: 80}},
		}},
	}
	if _, err := cs.CoreV1().Endpoints(ns).Create(ctx, endpoints, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Endpoints: %v", err)
	}
	for service, manager := range map[string]string{
		"mirrored": "endpointslicemirroring-controller.k8s.io",
		"selected": "endpointslice-controller.k8s.io",
	} {
		waitFor(t, "a slice of Service "+service+" managed by "+manager, gcTimeout, func(ctx context.Context) (bool, error) {
			l, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
				LabelSelector: discoveryv1.LabelServiceName + "=" + service + "," + discoveryv1.LabelManagedBy + "=" + manager,
			})
			return err == nil && len(l.Items) == 1, err
		})
	}
	waitFor(t, "the endpoints controller to write Endpoints "+ns+"/selected", gcTimeout, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Endpoints(ns).Get(ctx, "selected", metav1.GetOptions{})
		return err == nil, ignoreNotFound(err)
	})

	// The signing controller signs an approved certificate request with the
	// cluster's signing CA.
	if issuer := signedCertificateIssuer(t, cs); issuer != "controlplane-cluster-signing-ca" {
		t.Errorf("the signed certificate's issuer is %q, want the cluster signing CA", issuer)
	}

	log, err := os.ReadFile(filepath.Join(controlplane.Dir(cp), "kube-controller-manager.log"))
	if err != nil {
		t.Fatalf("read the controller manager's log: %v", err)
	}
	if errs := controllerErrors(log); len(errs) > 0 {
		t.Errorf("the controller manager logged %d errors:\n%s", len(errs), bytes.Join(errs, []byte("\n")))
	}
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// signedCertificateIssuer requests a client certificate, approves the request, waits
// for the signing controller to sign it and returns its issuer's common name.
func signedCertificateIssuer(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader,
		&x509.CertificateRequest{Subject: pkix.Name{CommonName: "someone"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	csr := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "controlplane-test-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature},
		},
	}
	csrs := cs.CertificatesV1().CertificateSigningRequests()
	created, err := csrs.Create(t.Context(), csr, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create a certificate signing request: %v", err)
	}
	t.Cleanup(func() { _ = csrs.Delete(context.WithoutCancel(t.Context()), created.Name, metav1.DeleteOptions{}) })
	created.Status.Conditions = append(created.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test", Message: "approved by the test",
	})
	if _, err := csrs.UpdateApproval(t.Context(), created.Name, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("approve the certificate signing request: %v", err)
	}
	var certPEM []byte
	waitFor(t, "the signing controller to sign "+created.Name, gcTimeout, func(ctx context.Context) (bool, error) {
		got, err := csrs.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		certPEM = got.Status.Certificate
		return len(certPEM) > 0, nil
	})
	block, _ := pem.Decode(certPEM)
	if block == nil {
		t.Fatalf("the signed certificate is not PEM: %q", certPEM)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("parse the signed certificate: %v", err)
	}
	return cert.Issuer.CommonName
}
