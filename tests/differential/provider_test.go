package differential_test

import (
	"fmt"
	"strings"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/inprocess"
)

// Check's side of the test: the real provider, in process, behind
// pulumi-go-provider's integration server, configured for the control plane as a
// program would configure it. Each case is one Check call, as the engine makes it on
// a create: a URN and the program's inputs, no old state.

const (
	// defaultLogicalName is the resource name (the URN's last part) of cases that
	// name none.
	defaultLogicalName = "diff"
)

// variant is a provider configuration that cases are checked under. It decides the
// namespace of objects that name none: the provider's `namespace` setting, else the
// kubeconfig context's namespace, else "default".
type variant int

const (
	plainConfig             variant = iota // the admin kubeconfig (its context names no namespace); no setting
	configNamespace                        // namespace setting otherNamespace
	contextNamespace                       // a kubeconfig whose context's namespace is contextNamespaceName
	configOverContext                      // both; the setting wins
	configNamespaceMissing                 // namespace setting missingNamespace, which does not exist
	configNamespaceInvalid                 // namespace setting that is not a DNS label
	contextNamespaceInvalid                // context namespace that is not a DNS label
	variantCount
)

const (
	// contextNamespaceName is the namespace of the contextNamespace variant's context.
	contextNamespaceName = "diff-context"
	// missingNamespace is a valid namespace name that is never created.
	missingNamespace = "diff-missing"
	// invalidNamespace is not a DNS label, so no namespace of that name can exist.
	invalidNamespace = "Bad_NS"
	// invalidContextNamespace is not a DNS label either.
	invalidContextNamespace = "Bad.Context"
)

// variantSpec is how a variant configures the provider, and the namespace that
// objects naming none must land in.
type variantSpec struct {
	name      string
	setting   string // the provider's namespace setting ("" leaves it unset)
	context   string // the kubeconfig context's namespace ("" leaves it unset)
	namespace string // the namespace the provider must default to
}

var variants = [variantCount]variantSpec{
	plainConfig:             {name: "no namespace configured", namespace: "default"},
	configNamespace:         {name: "namespace setting", setting: otherNamespace, namespace: otherNamespace},
	contextNamespace:        {name: "context namespace", context: contextNamespaceName, namespace: contextNamespaceName},
	configOverContext:       {name: "setting and context", setting: otherNamespace, context: contextNamespaceName, namespace: otherNamespace},
	configNamespaceMissing:  {name: "missing namespace setting", setting: missingNamespace, namespace: missingNamespace},
	configNamespaceInvalid:  {name: "invalid namespace setting", setting: invalidNamespace, namespace: invalidNamespace},
	contextNamespaceInvalid: {name: "invalid context namespace", context: invalidContextNamespace, namespace: invalidContextNamespace},
}

func (v variant) String() string { return variants[v].name }

// providers holds one configured provider per variant, for one control plane.
type providers struct {
	// end names the end of the window of minors whose control plane the providers
	// are configured for (see caseURN).
	end     string
	servers [variantCount]integration.Server
	// configureErrs are Configure's answers: a provider that refuses its
	// configuration checks nothing, so its cases count as rejected by Check.
	configureErrs [variantCount]error
}

func newProviders(t *testing.T, end string, kubeconfig []byte) *providers {
	t.Helper()
	ps := &providers{end: end}
	for v := range variantCount {
		spec := variants[v]
		config := kubeconfig
		if spec.context != "" {
			config = withContextNamespace(t, kubeconfig, spec.context)
		}
		var extra map[string]property.Value
		if spec.setting != "" {
			extra = map[string]property.Value{"namespace": property.New(spec.setting)}
		}
		srv := inprocess.Start(t)
		ps.servers[v] = srv
		ps.configureErrs[v] = inprocess.Configure(srv, config, extra)
		if ps.configureErrs[v] != nil && v < configNamespaceMissing {
			t.Fatalf("Configure (%v): %v", v, ps.configureErrs[v])
		}
	}
	return ps
}

// withContextNamespace returns the kubeconfig with its current context's namespace
// set.
func withContextNamespace(t *testing.T, kubeconfig []byte, namespace string) []byte {
	t.Helper()
	config, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatalf("read the kubeconfig: %v", err)
	}
	ctx, ok := config.Contexts[config.CurrentContext]
	if !ok {
		t.Fatalf("the kubeconfig has no current context")
	}
	ctx.Namespace = namespace
	out, err := clientcmd.Write(*config)
	if err != nil {
		t.Fatalf("write the kubeconfig: %v", err)
	}
	return out
}

// caseURN is the URN of case i checked for the control plane at end of the window:
// its stack is the case's own on that control plane, so the log lines of one case on
// one server (which carry the URN) are told from every other's, and its name is the
// case's logical name, from which the provider autonames.
func caseURN(end string, i int, c testCase) resource.URN {
	token := spec.EndpointSliceToken
	if c.kind == listKind {
		token = spec.EndpointsListToken
	}
	name := c.logical
	if name == "" {
		name = defaultLogicalName
	}
	return resource.NewURN(tokens.QName(fmt.Sprintf("%s-case-%d", end, i)), "differential", "", tokens.Type(token), name)
}

// checked is Check's answer to one case.
type checked struct {
	verdict
	inputs property.Map // the inputs Check returned
}

// check runs the provider's Check on case i.
func (ps *providers) check(t *testing.T, i int, c testCase) checked {
	if err := ps.configureErrs[c.variant]; err != nil {
		return checked{verdict: verdict{detail: "Configure: " + err.Error(), fields: []string{"metadata.namespace"}}}
	}
	u := caseURN(ps.end, i, c)
	resp, err := ps.servers[c.variant].Check(p.CheckRequest{Urn: u, Inputs: c.inputs})
	if err != nil {
		t.Errorf("case %d %q (%v): Check returned an error instead of failures: %v", i, c.name, c.kind, err)
		return checked{verdict: verdict{detail: "error: " + err.Error()}}
	}
	lines := make([]string, len(resp.Failures))
	fields := make([]string, len(resp.Failures))
	for j, f := range resp.Failures {
		lines[j] = f.Property + ": " + f.Reason
		fields[j] = f.Property
	}
	return checked{
		verdict: verdict{
			accepted: len(resp.Failures) == 0,
			detail:   strings.Join(lines, "; "),
			warnings: logs.Warnings(u),
			fields:   fields,
		},
		inputs: resp.Inputs,
	}
}

// logs records the provider's log: Check logs its warnings through
// pulumi-go-provider's engine logger (p.GetLogger(ctx).Warning); behind the
// integration server there is no engine, so that logger writes to slog's default
// logger, with the resource's URN as the "urn" attribute. logs is slog's default
// logger in this test binary (see TestMain), so each case's warnings are exactly what
// Check logged for its URN, as the engine would have shown them on the resource.
// (validate's Result.Warnings would also do for these cases, but they are not what
// the user sees: reading the log also holds the provider to passing them on.)
var logs = &inprocess.Log{}
