package spec

import (
	"encoding/json"
	"fmt"
	"sync"

	endpoints "github.com/endpoints-provider/pulumi-endpoints"
)

// Tokens of the resources and of the object type the provider writes.
const (
	EndpointSliceToken = "endpoints:discovery.k8s.io/v1:EndpointSlice"
	EndpointsListToken = "endpoints:core/v1:EndpointsList" //nolint:gosec // a type token, not a credential
	EndpointsTypeToken = "endpoints:core/v1:Endpoints"     //nolint:gosec // a type token, not a credential
)

// Tokens of the functions (the Google lookups).
//
//nolint:gosec // G101: function tokens, not credentials
const (
	ImportDataFileToken       = "endpoints:migration/v1alpha1:getImportDataFile"
	ProxyConfigIamPolicyToken = "endpoints:accessgateway/v1:getOrganizationPartnerTenantProxyConfigIamPolicy"
)

// Package is the subset of a Pulumi package schema the provider reads at run time.
type Package struct {
	Name      string              `json:"name"`
	Config    Config              `json:"config"`
	Types     map[string]Type     `json:"types"`
	Resources map[string]Resource `json:"resources"`
	Functions map[string]Function `json:"functions"`
}

// Config lists the provider configuration variables.
type Config struct {
	Variables map[string]Property `json:"variables"`
}

// Property describes one property of a type, resource, function or the configuration.
type Property struct {
	Type                 string       `json:"type,omitempty"`
	Ref                  string       `json:"$ref,omitempty"`
	Items                *Property    `json:"items,omitempty"`
	AdditionalProperties *Property    `json:"additionalProperties,omitempty"`
	Secret               bool         `json:"secret,omitempty"`
	Default              any          `json:"default,omitempty"`
	DefaultInfo          *DefaultInfo `json:"defaultInfo,omitempty"`
}

// DefaultInfo names the environment variables a property falls back to.
type DefaultInfo struct {
	Environment []string `json:"environment,omitempty"`
}

// Type is an object or enum type.
type Type struct {
	Type       string              `json:"type"`
	Properties map[string]Property `json:"properties,omitempty"`
	Required   []string            `json:"required,omitempty"`
	Enum       []EnumValue         `json:"enum,omitempty"`
}

// EnumValue is one allowed value of an enum type.
type EnumValue struct {
	Name  string `json:"name,omitempty"`
	Value any    `json:"value"`
}

// Resource describes a custom resource.
type Resource struct {
	InputProperties map[string]Property `json:"inputProperties,omitempty"`
	RequiredInputs  []string            `json:"requiredInputs,omitempty"`
	Properties      map[string]Property `json:"properties,omitempty"`
	Required        []string            `json:"required,omitempty"`
	// ListInputs are what the provider's List takes in its query (nil: the resource
	// cannot be listed).
	ListInputs *Type `json:"listInputs,omitempty"`
}

// Function describes an invoke.
type Function struct {
	Inputs  *Type `json:"inputs,omitempty"`
	Outputs *Type `json:"outputs,omitempty"`
}

// Load returns the decoded schema. It decodes on the first call only; the result is
// shared and must not be modified.
var Load = sync.OnceValues(func() (*Package, error) {
	var pkg Package
	if err := json.Unmarshal(endpoints.Schema(), &pkg); err != nil {
		return nil, fmt.Errorf("internal error: embedded schema.json does not decode: %w", err)
	}
	return &pkg, nil
})

// MustLoad is Load for callers that cannot continue without the schema; the embedded
// schema is checked by tests, so a failure here is a build defect.
func MustLoad() *Package {
	pkg, err := Load()
	if err != nil {
		panic(err)
	}
	return pkg
}
