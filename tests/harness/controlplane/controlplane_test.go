package controlplane_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// gcTimeout bounds every wait for the garbage collector.
const gcTimeout = 30 * time.Second

// holdFinalizer keeps an object in storage after its deletion until a test
// removes it.
const holdFinalizer = "controlplane.test/hold"

func TestMain(m *testing.M) { os.Exit(controlplane.RunTests(m)) }

// endpointSlice returns an IPv4 EndpointSlice with one endpoint at address
// and a named TCP port.
func endpointSlice(namespace, name, address string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: namespace,
			Labels:    map[string]string{discoveryv1.LabelServiceName: "web"},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses:  []string{address},
			Conditions: discoveryv1.EndpointConditions{Ready: new(true)},
		}},
		Ports: []discoveryv1.EndpointPort{{
			Name:     new("http"),
			Protocol: new(corev1.ProtocolTCP),
			Port:     new(int32(8080)),
		}},
	}
}

// ownerRef returns a reference to ConfigMap owner.
func ownerRef(owner *corev1.ConfigMap, blockOwnerDeletion *bool) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         "v1",
		Kind:               "ConfigMap",
		Name:               owner.Name,
		UID:                owner.UID,
		BlockOwnerDeletion: blockOwnerDeletion,
	}
}

func createConfigMap(t *testing.T, cs kubernetes.Interface, cm *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	created, err := cs.CoreV1().ConfigMaps(cm.Namespace).Create(t.Context(), cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create config map %s/%s: %v", cm.Namespace, cm.Name, err)
	}
	return created
}

// waitFor polls cond until it returns true, failing t after timeout.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func(context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	var last error
	for {
		done, err := cond(ctx)
		if err != nil {
			last = err
		} else if done {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %v (last error: %v)", what, timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// gone returns a condition that holds once get reports NotFound.
func gone(get func(context.Context) error) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}
}

// warningRecorder collects the warnings an API server sends.
type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

func (r *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnings = append(r.warnings, text)
}

func (r *warningRecorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.warnings)
}

func TestEndpointSliceRoundTrip(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	cs := cp.Clientset()
	ns := cp.Namespace(t, "test")

	want := endpointSlice(ns, "web", "10.1.2.3")
	created, err := cs.DiscoveryV1().EndpointSlices(ns).Create(t.Context(), want, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create endpoint slice: %v", err)
	}
	got, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get endpoint slice: %v", err)
	}
	if got.UID == "" || got.UID != created.UID {
		t.Errorf("UID = %q, want %q (the created object's)", got.UID, created.UID)
	}
	serverSet := cmpopts.IgnoreFields(metav1.ObjectMeta{},
		"UID", "ResourceVersion", "Generation", "CreationTimestamp", "ManagedFields")
	if diff := cmp.Diff(want, got, serverSet); diff != "" {
		t.Errorf("endpoint slice read back (-want +got):\n%s", diff)
	}
}

// TestEndpointAddressValidation shows what the API server accepts as an
// endpoint address. Both core/v1 Endpoints and discovery.k8s.io/v1
// EndpointSlices (of addressType IPv4 and IPv6) reject loopback addresses, as
// well as unspecified and link-local ones: with 422 Invalid naming the field,
// which is subsets[i].addresses[j].ip for Endpoints but endpoints[i].addresses[j]
// for EndpointSlices. Creating Endpoints draws a deprecation warning.
func TestEndpointAddressValidation(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "test")

	const loopback = "may not be in the loopback range (127.0.0.0/8, ::1/128)"
	tests := []struct {
		name    string
		kind    string // "Endpoints" or "EndpointSlice"
		address string
		// wantField and wantDetail describe the expected 422; empty: accepted.
		wantField, wantDetail string
	}{
		{name: "endpoints accept a pod address", kind: "Endpoints", address: "10.1.2.3"},
		{
			name: "endpoints reject loopback", kind: "Endpoints", address: "127.0.0.1",
			wantField: "subsets[0].addresses[0].ip", wantDetail: loopback,
		},
		{name: "endpoint slices accept a pod address", kind: "EndpointSlice", address: "10.1.2.3"},
		{
			name: "endpoint slices reject loopback", kind: "EndpointSlice", address: "127.0.0.1",
			wantField: "endpoints[0].addresses[0]", wantDetail: loopback,
		},
		{
			name: "endpoint slices reject link-local", kind: "EndpointSlice", address: "169.254.1.2",
			wantField:  "endpoints[0].addresses[0]",
			wantDetail: "may not be in the link-local range (169.254.0.0/16, fe80::/10)",
		},
	}
	qualifiedKind := map[string]string{"Endpoints": "Endpoints", "EndpointSlice": "EndpointSlice.discovery.k8s.io"}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			warnings := &warningRecorder{}
			config := cp.RESTConfig()
			config.WarningHandler = warnings
			cs, err := kubernetes.NewForConfig(config)
			if err != nil {
				t.Fatalf("build clientset: %v", err)
			}
			name := fmt.Sprintf("address-%d", i)
			var stored string
			switch tt.kind {
			case "Endpoints":
				endpoints := &corev1.Endpoints{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Subsets: []corev1.EndpointSubset{{
						Addresses: []corev1.EndpointAddress{{IP: tt.address}},
						Ports:     []corev1.EndpointPort{{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}},
					}},
				}
				var created *corev1.Endpoints
				created, err = cs.CoreV1().Endpoints(ns).Create(t.Context(), endpoints, metav1.CreateOptions{})
				if err == nil {
					stored = created.Subsets[0].Addresses[0].IP
				}
			case "EndpointSlice":
				var created *discoveryv1.EndpointSlice
				created, err = cs.DiscoveryV1().EndpointSlices(ns).Create(t.Context(), endpointSlice(ns, name, tt.address), metav1.CreateOptions{})
				if err == nil {
					stored = created.Endpoints[0].Addresses[0]
				}
			}
			var wantWarnings []string
			if tt.kind == "Endpoints" {
				wantWarnings = []string{"v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"}
			}
			if diff := cmp.Diff(wantWarnings, warnings.get(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}

			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("create %s with address %s: %v", tt.kind, tt.address, err)
				}
				if stored != tt.address {
					t.Errorf("stored address = %q, want %q", stored, tt.address)
				}
				return
			}

			var status apierrors.APIStatus
			if !errors.As(err, &status) {
				t.Fatalf("create %s with address %s: error = %v, want a 422 status", tt.kind, tt.address, err)
			}
			s := status.Status()
			if s.Code != http.StatusUnprocessableEntity || s.Reason != metav1.StatusReasonInvalid {
				t.Errorf("status = %d %s, want 422 Invalid", s.Code, s.Reason)
			}
			wantMessage := fmt.Sprintf("%s %q is invalid: %s: Invalid value: %q: %s",
				qualifiedKind[tt.kind], name, tt.wantField, tt.address, tt.wantDetail)
			if s.Message != wantMessage {
				t.Errorf("message = %q, want %q", s.Message, wantMessage)
			}
			wantCauses := []metav1.StatusCause{{
				Type:    metav1.CauseTypeFieldValueInvalid,
				Field:   tt.wantField,
				Message: fmt.Sprintf("Invalid value: %q: %s", tt.address, tt.wantDetail),
			}}
			if s.Details == nil {
				t.Fatalf("status has no details, want causes %v", wantCauses)
			}
			if diff := cmp.Diff(wantCauses, s.Details.Causes); diff != "" {
				t.Errorf("status causes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestForegroundDeletion shows that the garbage collector runs: a
// foreground delete keeps the owner, marked for deletion, while a blocking
// dependent exists, deletes the dependent, and completes once the dependent
// is gone.
func TestForegroundDeletion(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	cs := cp.Clientset()
	ns := cp.Namespace(t, "test")
	configMaps := cs.CoreV1().ConfigMaps(ns)

	owner := createConfigMap(t, cs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns}})
	createConfigMap(t, cs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name:            "dependent",
		Namespace:       ns,
		OwnerReferences: []metav1.OwnerReference{ownerRef(owner, new(true))},
		// Holds the dependent, and so the owner, until the test lets go.
		Finalizers: []string{holdFinalizer},
	}})

	foreground := metav1.DeletePropagationForeground
	if err := configMaps.Delete(t.Context(), "owner", metav1.DeleteOptions{PropagationPolicy: &foreground}); err != nil {
		t.Fatalf("delete the owner in the foreground: %v", err)
	}
	got, err := configMaps.Get(t.Context(), "owner", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the owner being deleted: %v", err)
	}
	if got.DeletionTimestamp == nil || !slices.Contains(got.Finalizers, metav1.FinalizerDeleteDependents) {
		t.Fatalf("owner after a foreground delete: deletionTimestamp %v, finalizers %v; want a deletionTimestamp and %q",
			got.DeletionTimestamp, got.Finalizers, metav1.FinalizerDeleteDependents)
	}

	waitFor(t, "the garbage collector deletes the dependent", gcTimeout, func(ctx context.Context) (bool, error) {
		dependent, err := configMaps.Get(ctx, "dependent", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return dependent.DeletionTimestamp != nil, nil
	})
	if _, err := configMaps.Get(t.Context(), "owner", metav1.GetOptions{}); err != nil {
		t.Fatalf("the owner must remain while its blocking dependent exists: %v", err)
	}

	patch := []byte(`{"metadata":{"finalizers":null}}`)
	if _, err := configMaps.Patch(t.Context(), "dependent", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("remove the dependent's finalizer: %v", err)
	}
	waitFor(t, "the foreground delete of the owner completes", gcTimeout, gone(func(ctx context.Context) error {
		_, err := configMaps.Get(ctx, "owner", metav1.GetOptions{})
		return err
	}))
	if _, err := configMaps.Get(t.Context(), "dependent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get the dependent after its owner is gone: error = %v, want NotFound", err)
	}
}

// TestOwnedEndpointSliceCollected shows that the garbage collector deletes
// an EndpointSlice whose owner was deleted in the background, and only it.
func TestOwnedEndpointSliceCollected(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	cs := cp.Clientset()
	ns := cp.Namespace(t, "test")
	slicesClient := cs.DiscoveryV1().EndpointSlices(ns)

	owner := createConfigMap(t, cs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns}})
	owned := endpointSlice(ns, "owned", "10.1.2.3")
	owned.OwnerReferences = []metav1.OwnerReference{ownerRef(owner, nil)}
	created, err := slicesClient.Create(t.Context(), owned, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create the owned endpoint slice: %v", err)
	}
	if diff := cmp.Diff(owned.OwnerReferences, created.OwnerReferences); diff != "" {
		t.Fatalf("stored ownerReferences (-want +got):\n%s", diff)
	}
	if _, err := slicesClient.Create(t.Context(), endpointSlice(ns, "unowned", "10.1.2.4"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create the unowned endpoint slice: %v", err)
	}

	background := metav1.DeletePropagationBackground
	if err := cs.CoreV1().ConfigMaps(ns).Delete(t.Context(), "owner", metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		t.Fatalf("delete the owner: %v", err)
	}
	waitFor(t, "the garbage collector deletes the owned endpoint slice", gcTimeout, gone(func(ctx context.Context) error {
		_, err := slicesClient.Get(ctx, "owned", metav1.GetOptions{})
		return err
	}))
	if _, err := slicesClient.Get(t.Context(), "unowned", metav1.GetOptions{}); err != nil {
		t.Errorf("the unowned endpoint slice must remain: %v", err)
	}
}

// TestMintIdentity shows a restricted identity at work, and what the
// OwnerReferencesPermissionEnforcement admission plugin answers when it sets
// blockOwnerDeletion: 403 Forbidden unless it may update the owner's
// finalizers subresource; permission to delete the owner is not enough.
func TestMintIdentity(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	admin := cp.Clientset()
	ns, otherNS := cp.Namespace(t, "test"), cp.Namespace(t, "test")
	owner := createConfigMap(t, admin, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns}})

	sliceRules := []rbacv1.PolicyRule{{
		APIGroups: []string{discoveryv1.GroupName},
		Resources: []string{"endpointslices"},
		Verbs:     []string{"get", "list", "create"},
	}}
	identities := map[string][]rbacv1.PolicyRule{
		"writer": sliceRules,
		"deleter": append(slices.Clone(sliceRules), rbacv1.PolicyRule{
			APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"delete"},
		}),
		"finalizer": append(slices.Clone(sliceRules), rbacv1.PolicyRule{
			APIGroups: []string{""}, Resources: []string{"configmaps/finalizers"}, Verbs: []string{"update"},
		}),
	}
	clients := map[string]kubernetes.Interface{}
	for name, rules := range identities {
		kubeconfig, err := cp.MintIdentity(t.Context(), name, ns, rules)
		if err != nil {
			t.Fatalf("mint identity %s: %v", name, err)
		}
		config, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
		if err != nil {
			t.Fatalf("parse the kubeconfig of identity %s: %v", name, err)
		}
		if config.Host != cp.RESTConfig().Host {
			t.Errorf("identity %s: server %q, want %q", name, config.Host, cp.RESTConfig().Host)
		}
		clients[name], err = kubernetes.NewForConfig(config)
		if err != nil {
			t.Fatalf("build the clientset of identity %s: %v", name, err)
		}
	}

	review, err := clients["writer"].AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("self subject review: %v", err)
	}
	if want := "system:serviceaccount:" + ns + ":writer"; review.Status.UserInfo.Username != want {
		t.Errorf("identity's user name = %q, want %q", review.Status.UserInfo.Username, want)
	}

	forbiddenBlock := func(name string) string {
		return fmt.Sprintf(`endpointslices.discovery.k8s.io %q is forbidden: `+
			`cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`, name)
	}
	tests := []struct {
		identity, namespace, name string
		ownerRefs                 []metav1.OwnerReference
		wantCode                  int32 // 0: created
		wantMessage               string
	}{
		{identity: "writer", namespace: ns, name: "plain"},
		{
			identity: "writer", namespace: otherNS, name: "elsewhere",
			wantCode: http.StatusForbidden,
			wantMessage: fmt.Sprintf(`endpointslices.discovery.k8s.io is forbidden: User "system:serviceaccount:%s:writer" `+
				`cannot create resource "endpointslices" in API group "discovery.k8s.io" in the namespace %q`, ns, otherNS),
		},
		{identity: "writer", namespace: ns, name: "owned", ownerRefs: []metav1.OwnerReference{ownerRef(owner, nil)}},
		{identity: "writer", namespace: ns, name: "not-blocking", ownerRefs: []metav1.OwnerReference{ownerRef(owner, new(false))}},
		{
			identity: "writer", namespace: ns, name: "blocking",
			ownerRefs: []metav1.OwnerReference{ownerRef(owner, new(true))},
			wantCode:  http.StatusForbidden, wantMessage: forbiddenBlock("blocking"),
		},
		{
			identity: "deleter", namespace: ns, name: "blocking-deleter",
			ownerRefs: []metav1.OwnerReference{ownerRef(owner, new(true))},
			wantCode:  http.StatusForbidden, wantMessage: forbiddenBlock("blocking-deleter"),
		},
		{identity: "finalizer", namespace: ns, name: "blocking-finalizer", ownerRefs: []metav1.OwnerReference{ownerRef(owner, new(true))}},
	}
	for _, tt := range tests {
		t.Run(tt.identity+"/"+tt.name, func(t *testing.T) {
			t.Parallel()
			slice := endpointSlice(tt.namespace, tt.name, "10.1.2.3")
			slice.OwnerReferences = tt.ownerRefs
			_, err := clients[tt.identity].DiscoveryV1().EndpointSlices(tt.namespace).Create(t.Context(), slice, metav1.CreateOptions{})
			if tt.wantCode == 0 {
				if err != nil {
					t.Fatalf("create endpoint slice %s/%s as %s: %v", tt.namespace, tt.name, tt.identity, err)
				}
				return
			}
			var status apierrors.APIStatus
			if !errors.As(err, &status) {
				t.Fatalf("create endpoint slice %s/%s as %s: error = %v, want status %d", tt.namespace, tt.name, tt.identity, err, tt.wantCode)
			}
			if got := status.Status(); got.Code != tt.wantCode || got.Message != tt.wantMessage {
				t.Errorf("status = %d %q, want %d %q", got.Code, got.Message, tt.wantCode, tt.wantMessage)
			}
		})
	}
}

func TestMintClusterIdentity(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "test")
	kubeconfig, err := cp.MintClusterIdentity(t.Context(), "reader", ns, []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list"},
	}})
	if err != nil {
		t.Fatalf("mint a cluster identity: %v", err)
	}
	config, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatalf("parse the identity's kubeconfig: %v", err)
	}
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatalf("build the identity's clientset: %v", err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); err != nil {
		t.Errorf("get namespace %s: %v", ns, err)
	}
	if _, err := cs.CoreV1().ConfigMaps("").List(t.Context(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list config maps in all namespaces: error = %v, want Forbidden", err)
	}
}

// TestStop starts a control plane of its own and shows that Stop ends every
// process, removes the temporary directory and may be called again.
func TestStop(t *testing.T) {
	t.Parallel()
	began := time.Now()
	cp := controlplane.StartT(t)
	t.Logf("control plane started in %v", time.Since(began).Round(time.Millisecond))
	pids, dir := controlplane.PIDs(cp), controlplane.Dir(cp)
	if len(pids) != 3 {
		t.Fatalf("PIDs = %v, want etcd, kube-apiserver and kube-controller-manager", pids)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err != nil {
			t.Fatalf("process %d before Stop: %v", pid, err)
		}
	}
	if _, err := os.Stat(cp.KubeconfigPath()); err != nil {
		t.Fatalf("kubeconfig before Stop: %v", err)
	}

	began = time.Now()
	if err := cp.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("control plane stopped in %v", time.Since(began).Round(time.Millisecond))
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d after Stop: kill(0) = %v, want ESRCH", pid, err)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary directory %s after Stop: %v, want it removed", dir, err)
	}
	if err := cp.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// TestRemoveStaleDirs shows that Start's sweep removes the directory of a
// control plane whose owner process is gone, and only such directories.
func TestRemoveStaleDirs(t *testing.T) {
	t.Parallel()
	start, err := controlplane.ProcessStartTime(os.Getpid())
	if err != nil {
		t.Fatalf("read this process's start time: %v", err)
	}
	owners := map[string]string{
		// The same PID with another start time: a process that is gone.
		"stale": fmt.Sprintf("%d %s-before\n", os.Getpid(), start),
		"live":  fmt.Sprintf("%d %s\n", os.Getpid(), start),
		"none":  "",
	}
	dirs := map[string]string{}
	for name, owner := range owners {
		// Start's sweep looks in os.TempDir, not in t.TempDir.
		dir, err := os.MkdirTemp("", controlplane.DirPrefix) //nolint:usetesting // see above
		if err != nil {
			t.Fatalf("create directory %s: %v", name, err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, controlplane.OwnerFile), []byte(owner), 0o600); err != nil {
				t.Fatalf("write the owner of directory %s: %v", name, err)
			}
		}
		dirs[name] = dir
	}

	controlplane.RemoveStaleDirs()
	for name, dir := range dirs {
		_, err := os.Stat(dir)
		if wantGone := name == "stale"; wantGone != errors.Is(err, os.ErrNotExist) {
			t.Errorf("directory %s (%s) after the sweep: stat error %v, want removed: %v", name, dir, err, wantGone)
		}
	}
}

// TestStartRequiresBinaries shows that Start fails, saying what to do, when
// a binary is missing. It sets environment variables, so it cannot run in
// parallel.
func TestStartRequiresBinaries(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, env, value string
		oldest           bool // StartOldest, not Start
		want             []string
	}{
		{
			name: "unset", env: controlplane.EnvEtcd, value: "",
			want: []string{"TEST_ASSET_ETCD is not set", "make tools", "make test"},
		},
		{
			name: "missing", env: controlplane.EnvKubeAPIServer, value: "/nonexistent/kube-apiserver",
			want: []string{"TEST_ASSET_KUBE_APISERVER=/nonexistent/kube-apiserver", "no such file", "make tools"},
		},
		{
			name: "directory", env: controlplane.EnvKubeControllerManager, value: dir,
			want: []string{"TEST_ASSET_KUBE_CONTROLLER_MANAGER=" + dir, "not an executable file", "make tools"},
		},
		{
			name: "oldest unset", env: controlplane.EnvKubeAPIServerOldest, value: "", oldest: true,
			want: []string{"TEST_ASSET_KUBE_APISERVER_OLDEST is not set", "make tools", "make test"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(tt.env, tt.value)
			start := controlplane.Start
			if tt.oldest {
				start = controlplane.StartOldest
			}
			cp, err := start(t.Context(), controlplane.Options{})
			if err == nil {
				_ = cp.Stop()
				t.Fatalf("Start with %s=%q succeeded, want an error", tt.env, tt.value)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Start error %q does not contain %q", err, want)
				}
			}
		})
	}
}

var _ rest.WarningHandler = (*warningRecorder)(nil)
