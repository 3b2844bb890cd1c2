package lifecycle_test

import (
	"context"
	"strings"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// A 403 from a ValidatingAdmissionPolicy is reported as the policy's denial, with its
// message, not as missing RBAC permissions (the identity is the cluster admin).
func TestAdmissionPolicyDenialIsNotBlamedOnRBAC(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	cs := clientset(t)
	policies := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	bindings := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	name := "reserve-slice-" + ns
	fail, forbidden := admissionv1.Fail, metav1.StatusReasonForbidden
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule: admissionv1.Rule{APIGroups: []string{"discovery.k8s.io"}, APIVersions: []string{"v1"},
						Resources: []string{"endpointslices"}},
				},
			}}},
			Validations: []admissionv1.Validation{{
				Expression: `object.metadata.name != "reserved"`,
				Message:    "the name reserved is kept for the platform team",
				Reason:     &forbidden, // 403; the default is 422 Invalid
			}},
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
	probe := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "reserved", Namespace: ns},
		AddressType: discoveryv1.AddressTypeIPv4}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		_, err := cs.DiscoveryV1().EndpointSlices(ns).Create(t.Context(), probe,
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if apierrors.IsForbidden(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the policy is not enforced after 30s (dry run: %v)", err)
		}
	}

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
