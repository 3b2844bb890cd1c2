package google

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// proxyConfigIamPolicyArgs are the arguments of
// getOrganizationPartnerTenantProxyConfigIamPolicy, as schema.json declares them.
var proxyConfigIamPolicyArgs = []argSpec{
	{name: "optionsRequestedPolicyVersion", kind: integerArg},
	{name: "organizationId", kind: stringArg, required: true, id: true},
	{name: "partnerTenantId", kind: stringArg, required: true, id: true},
	{name: "proxyConfigId", kind: stringArg, required: true, id: true},
}

// getProxyConfigIamPolicy serves
// endpoints:accessgateway/v1:getOrganizationPartnerTenantProxyConfigIamPolicy.
func (l *lookups) getProxyConfigIamPolicy(ctx context.Context, in property.Map) (p.InvokeResponse, error) {
	return invoke(ctx, l, "getOrganizationPartnerTenantProxyConfigIamPolicy", proxyConfigIamPolicyArgs, in,
		planProxyConfigIamPolicy, policyOutputs)
}

func planProxyConfigIamPolicy(a args, _ Config) (subject, func(context.Context, *clients) (*iamPolicy, error), []p.CheckFailure) {
	version, hasVersion := a.ints["optionsRequestedPolicyVersion"]
	if hasVersion && version != 0 && version != 1 && version != 3 {
		return subject{}, nil, []p.CheckFailure{{
			Property: "optionsRequestedPolicyVersion",
			Reason: fmt.Sprintf("optionsRequestedPolicyVersion must be 0, 1 or 3, not %d; "+
				"request 3 to read a policy with conditional role bindings", version),
		}}
	}
	org, tenant, config := a.strings["organizationId"], a.strings["partnerTenantId"], a.strings["proxyConfigId"]
	path := "organizations/" + org + "/locations/global/partnerTenants/" + tenant + "/proxyConfigs/" + config
	escaped := "organizations/" + url.PathEscape(org) + "/locations/global/partnerTenants/" + url.PathEscape(tenant) +
		"/proxyConfigs/" + url.PathEscape(config)
	query := url.Values{"alt": {"json"}, "prettyPrint": {"false"}}
	if hasVersion {
		query.Set("options.requestedPolicyVersion", strconv.FormatInt(version, 10))
	}
	subj := subject{kind: "proxy config", path: path, action: "reading the IAM policy of proxy config " + path}
	call := func(ctx context.Context, c *clients) (*iamPolicy, error) {
		return getIamPolicy(ctx, c, escaped+":getIamPolicy?"+query.Encode())
	}
	return subj, call, nil
}

// getIamPolicy makes the single GET of the BeyondCorp v1 method
// organizations.locations.global.partnerTenants.proxyConfigs.getIamPolicy, as the
// generated client of old library releases made it (see getJSON). rel is the escaped path and query
// after the version path.
func getIamPolicy(ctx context.Context, c *clients, rel string) (*iamPolicy, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.beyondcorpBase+"v1/"+rel, nil)
	if err != nil {
		return nil, fmt.Errorf("internal error: building the request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	var policy iamPolicy
	if _, err := getJSON(c.beyondcorp, req, &policy); err != nil {
		return nil, err
	}
	return &policy, nil
}

// iamPolicy is google.iam.v1.Policy as the REST API encodes it.
type iamPolicy struct {
	Version      int64             `json:"version"`
	Etag         string            `json:"etag"`
	Bindings     []*iamBinding     `json:"bindings"`
	AuditConfigs []*iamAuditConfig `json:"auditConfigs"`
}

type iamBinding struct {
	Role      string   `json:"role"`
	Members   []string `json:"members"`
	Condition *iamExpr `json:"condition"`
}

type iamExpr struct {
	Expression  string `json:"expression"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Location    string `json:"location"`
}

type iamAuditConfig struct {
	Service         string               `json:"service"`
	AuditLogConfigs []*iamAuditLogConfig `json:"auditLogConfigs"`
}

type iamAuditLogConfig struct {
	LogType         string   `json:"logType"`
	ExemptedMembers []string `json:"exemptedMembers"`
}

// policyOutputs shapes a policy into the function's outputs: lists are present even
// when empty, every binding has a condition with all four strings, version is 0 when
// absent. Enum-like strings (logType) pass through as the server sent them.
func policyOutputs(policy *iamPolicy) property.Map {
	if policy == nil {
		policy = &iamPolicy{}
	}
	bindings := make([]property.Value, 0, len(policy.Bindings))
	for _, b := range policy.Bindings {
		if b == nil {
			continue
		}
		cond := b.Condition
		if cond == nil {
			cond = &iamExpr{}
		}
		bindings = append(bindings, property.New(map[string]property.Value{
			"role":    property.New(b.Role),
			"members": stringList(b.Members),
			"condition": property.New(map[string]property.Value{
				"expression":  property.New(cond.Expression),
				"title":       property.New(cond.Title),
				"description": property.New(cond.Description),
				"location":    property.New(cond.Location),
			}),
		}))
	}
	audits := make([]property.Value, 0, len(policy.AuditConfigs))
	for _, a := range policy.AuditConfigs {
		if a == nil {
			continue
		}
		logs := make([]property.Value, 0, len(a.AuditLogConfigs))
		for _, l := range a.AuditLogConfigs {
			if l == nil {
				continue
			}
			logs = append(logs, property.New(map[string]property.Value{
				"logType":         property.New(l.LogType),
				"exemptedMembers": stringList(l.ExemptedMembers),
			}))
		}
		audits = append(audits, property.New(map[string]property.Value{
			"service":         property.New(a.Service),
			"auditLogConfigs": property.New(property.NewArray(logs)),
		}))
	}
	return property.NewMap(map[string]property.Value{
		"auditConfigs": property.New(property.NewArray(audits)),
		"bindings":     property.New(property.NewArray(bindings)),
		"etag":         property.New(policy.Etag),
		"version":      property.New(float64(policy.Version)),
	})
}

// stringList is a list of strings as a property value: an empty list, never null.
func stringList(ss []string) property.Value {
	vs := make([]property.Value, len(ss))
	for i, s := range ss {
		vs[i] = property.New(s)
	}
	return property.New(property.NewArray(vs))
}
