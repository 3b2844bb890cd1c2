package controlplane

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// tokenLifetime is how long a minted token is valid.
	tokenLifetime = time.Hour
	// rbacTimeout bounds the wait for the API server to authorize with new
	// RBAC objects (its authorizer reads them through informers).
	rbacTimeout = 10 * time.Second
)

// MintIdentity returns a kubeconfig for ServiceAccount name in namespace,
// allowed only what rules allow in namespace (and what every authenticated
// user may do). It creates the namespace and the ServiceAccount unless they
// exist, a Role and a RoleBinding named name (which must not exist), waits
// until the API server authorizes with them, and mints a token for the
// ServiceAccount through the TokenRequest API, valid for one hour. The
// kubeconfig's default namespace is namespace.
func (c *ControlPlane) MintIdentity(ctx context.Context, name, namespace string, rules []rbacv1.PolicyRule) ([]byte, error) {
	return c.mintIdentity(ctx, name, namespace, rules, false)
}

// MintClusterIdentity is MintIdentity with a ClusterRole and a
// ClusterRoleBinding named "<namespace>:<name>": rules apply in every
// namespace and may name cluster-scoped resources and non-resource URLs.
// Minting both for the same ServiceAccount grants it both sets of rules.
func (c *ControlPlane) MintClusterIdentity(ctx context.Context, name, namespace string, rules []rbacv1.PolicyRule) ([]byte, error) {
	return c.mintIdentity(ctx, name, namespace, rules, true)
}

func (c *ControlPlane) mintIdentity(ctx context.Context, name, namespace string, rules []rbacv1.PolicyRule, clusterWide bool) ([]byte, error) {
	if name == "" || namespace == "" {
		return nil, fmt.Errorf("mint an identity %q in namespace %q: both names are required", name, namespace)
	}
	cs := c.clientset
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create namespace %s: %w", namespace, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	if _, err := cs.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create service account %s/%s: %w", namespace, name, err)
	}

	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}}
	checkNamespace := namespace
	if clusterWide {
		checkNamespace = ""
		roleName := namespace + ":" + name
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: roleName}, Rules: rules}
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create cluster role %s: %w", roleName, err)
		}
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: roleName},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
			Subjects:   subjects,
		}
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create cluster role binding %s: %w", roleName, err)
		}
	} else {
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Rules: rules}
		if _, err := cs.RbacV1().Roles(namespace).Create(ctx, role, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create role %s/%s: %w", namespace, name, err)
		}
		binding := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects:   subjects,
		}
		if _, err := cs.RbacV1().RoleBindings(namespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create role binding %s/%s: %w", namespace, name, err)
		}
	}

	user := "system:serviceaccount:" + namespace + ":" + name
	if err := c.waitAuthorized(ctx, user, checkNamespace, rules); err != nil {
		return nil, err
	}

	seconds := int64(tokenLifetime / time.Second)
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
	response, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, request, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("request a token for service account %s/%s: %w", namespace, name, err)
	}
	return buildKubeconfig(c.server, c.caData, user, response.Status.Token, namespace)
}

// waitAuthorized waits until the API server allows user something that the
// first rule of rules allows, that is until its authorizer has seen the new
// role and binding. It returns at once if no rule can be checked simply.
func (c *ControlPlane) waitAuthorized(ctx context.Context, user, namespace string, rules []rbacv1.PolicyRule) error {
	if len(rules) == 0 {
		return nil
	}
	spec, ok := accessCheck(rules[0], namespace)
	if !ok {
		return nil
	}
	spec.User = user
	ctx, cancel := context.WithTimeout(ctx, rbacTimeout)
	defer cancel()
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		review := &authorizationv1.SubjectAccessReview{Spec: spec}
		got, err := c.clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err == nil && got.Status.Allowed {
			return nil
		}
		if err == nil {
			err = errors.New("denied")
			if got.Status.Reason != "" {
				err = fmt.Errorf("denied: %s", got.Status.Reason)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the API server does not authorize %s with its new role (last result: %w): %w", user, err, context.Cause(ctx))
		case <-ticker.C:
		}
	}
}

// accessCheck returns a request that rule allows, in namespace, if rule
// names one plainly.
func accessCheck(rule rbacv1.PolicyRule, namespace string) (authorizationv1.SubjectAccessReviewSpec, bool) {
	if len(rule.Verbs) == 0 {
		return authorizationv1.SubjectAccessReviewSpec{}, false
	}
	if len(rule.NonResourceURLs) > 0 {
		return authorizationv1.SubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{
			Path: rule.NonResourceURLs[0],
			Verb: rule.Verbs[0],
		}}, true
	}
	if len(rule.APIGroups) == 0 || len(rule.Resources) == 0 {
		return authorizationv1.SubjectAccessReviewSpec{}, false
	}
	resource, subresource, _ := strings.Cut(rule.Resources[0], "/")
	attributes := &authorizationv1.ResourceAttributes{
		Namespace:   namespace,
		Verb:        rule.Verbs[0],
		Group:       rule.APIGroups[0],
		Resource:    resource,
		Subresource: subresource,
	}
	if len(rule.ResourceNames) > 0 {
		attributes.Name = rule.ResourceNames[0]
	}
	return authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: attributes}, true
}
