package lifecycle_test

import (
	"context"
	"strings"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// denyByPolicy makes a ValidatingAdmissionPolicy, bound to namespace ns alone, that
// denies the creates and updates of resource (of API group group) for which expression
// is false, with message and reason (nil: the API's default, 422 Invalid), and waits
// until the API server enforces it: probe, created with a dry run, is denied.
func denyByPolicy(t *testing.T, ns, name, group, resource, expression, message string,
	reason *metav1.StatusReason, probe func(context.Context) error,
) {
	t.Helper()
	cs := clientset(t)
	policies := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	bindings := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	fail := admissionv1.Fail
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule: admissionv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"},
						Resources: []string{resource}},
				},
			}}},
			Validations: []admissionv1.Validation{{Expression: expression, Message: message, Reason: reason}},
		},
	}
	if _, err := policies.Create(t.Context(), policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = policies.Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{}) })
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
			MatchResources: &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns},
			}},
		},
	}
	if _, err := bindings.Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bindings.Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{}) })

	// The API server enforces a new policy once its informers have it: wait for that.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		err := probe(t.Context())
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the policy is not enforced after 30s (dry run: %v)", err)
		}
	}
}

// A 403 from a ValidatingAdmissionPolicy is reported as the policy's denial, with its
// message, not as missing RBAC permissions (the identity is the cluster admin).
func TestAdmissionPolicyDenialIsNotBlamedOnRBAC(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	name := "reserve-slice-" + ns
	forbidden := metav1.StatusReasonForbidden // 403; the default is 422 Invalid
	denyByPolicy(t, ns, name, "discovery.k8s.io", "endpointslices", `object.metadata.name != "reserved"`,
		"the name reserved is kept for the platform team", &forbidden, func(ctx context.Context) error {
			probe := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "reserved", Namespace: ns},
				AddressType: discoveryv1.AddressTypeIPv4}
			_, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Create(ctx, probe,
				metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		})

	u := urn(spec.EndpointSliceToken, "reserved")
	inputs := check(t, srv, u, property.Map{}, sliceInputs(ns, "IPv4", "10.0.0.30", 80).Set("metadata",
		property.New(obj("namespace", ns, "name", "reserved"))))
	_, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err == nil {
		t.Fatal("Create succeeded although a ValidatingAdmissionPolicy denies it")
	}
	for _, want := range []string{
		"not allowed to create EndpointSlice " + ns + "/reserved (403)",
		"a ValidatingAdmissionPolicy of the cluster denied the request, not RBAC",
		"ValidatingAdmissionPolicy '" + name + "' with binding '" + name + "' denied request",
		"the name reserved is kept for the platform team",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not contain %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "permission on") {
		t.Errorf("error blames RBAC permissions:\n%v", err)
	}
}

// A ValidatingAdmissionPolicy's denial with the default reason (422 Invalid) names the
// object and says the policy's denial once, with no empty field before it.
func TestAdmissionPolicyInvalidSaysTheDenialOnce(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	name := "reserved-endpoints-" + ns
	const message = "addresses in 10.66.9.0/24 are reserved for the mesh"
	denyByPolicy(t, ns, name, "", "endpoints",
		`object.subsets.all(s, !has(s.addresses) || s.addresses.all(a, !a.ip.startsWith("10.66.9.")))`,
		message, nil, func(ctx context.Context) error {
			probe := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns},
				Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.66.9.1"}}}}}
			_, err := clientset(t).CoreV1().Endpoints(ns).Create(ctx, probe,
				metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		})

	u := urn(spec.EndpointsListToken, "cache")
	inputs := check(t, srv, u, property.Map{}, items(endpointsItem(ns, "cache", "10.66.9.7", 80)))
	_, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err == nil {
		t.Fatal("Create succeeded although a ValidatingAdmissionPolicy denies it")
	}
	denial := "ValidatingAdmissionPolicy '" + name + "' with binding '" + name + "' denied request: " + message
	want := "Endpoints " + ns + "/cache is invalid (422): endpoints \"cache\" is forbidden: " + denial
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error does not contain %q:\n%v", want, err)
	}
	if n := strings.Count(err.Error(), denial); n != 1 {
		t.Errorf("error says the denial %d times, want once:\n%v", n, err)
	}
	if strings.Contains(err.Error(), ": :") {
		t.Errorf("error has an empty part:\n%v", err)
	}
}
