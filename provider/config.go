package provider

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/google"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// Config is the typed provider configuration. Every key of schema.json's
// config.variables sets exactly one field (a test holds the two together).
type Config struct {
	Kube   kube.Config
	Google google.Config
	// LookupTimeout is the lookupTimeout setting as given; parsed into Google.Timeout.
	LookupTimeout string
	// Unknown lists keys whose values are not known yet (a preview whose provider
	// configuration depends on other resources' outputs).
	Unknown []string
}

// fields maps each configuration key to the field it sets.
func (c *Config) fields() map[string]*string {
	return map[string]*string{
		"kubeconfig":                    &c.Kube.Kubeconfig,
		"context":                       &c.Kube.Context,
		"namespace":                     &c.Kube.Namespace,
		"deletePropagationPolicy":       &c.Kube.DeletePropagationPolicy,
		"project":                       &c.Google.Project,
		"credentials":                   &c.Google.Credentials,
		"accessToken":                   &c.Google.AccessToken,
		"impersonateServiceAccount":     &c.Google.ImpersonateServiceAccount,
		"migrationCenterCustomEndpoint": &c.Google.MigrationCenterEndpoint,
		"beyondcorpCustomEndpoint":      &c.Google.BeyondcorpEndpoint,
		"lookupTimeout":                 &c.LookupTimeout,
	}
}

// configChoices are the keys whose value must be one of a few words.
var configChoices = map[string][]string{
	"deletePropagationPolicy": {"Background", "Foreground", "Orphan"},
}

// engineKeys are provider inputs the engine itself adds; they are not configuration
// (nor are keys with a "__" prefix, which the engine and provider framework reserve).
var engineKeys = []string{"version", "pluginDownloadURL"}

// parseConfig reads the configuration from the engine's arguments, then falls back to
// the environment variables schema.json names for each key. It returns one failure per
// malformed key and one warning per key the provider does not know.
func parseConfig(args property.Map, getenv func(string) string) (Config, []p.CheckFailure, []string) {
	var (
		cfg      Config
		failures []p.CheckFailure
		warnings []string
	)
	vars := spec.MustLoad().Config.Variables
	fields := cfg.fields()
	for key, value := range args.AllStable {
		field, known := fields[key]
		switch {
		case !known && (slices.Contains(engineKeys, key) || strings.HasPrefix(key, "__")):
		case !known:
			warnings = append(warnings, fmt.Sprintf("unknown provider configuration key %q is ignored; known keys: %s",
				key, strings.Join(slices.Sorted(maps.Keys(vars)), ", ")))
		case value.IsComputed():
			cfg.Unknown = append(cfg.Unknown, key)
		case value.IsNull():
		case value.IsString() && value.AsString() != "" && configChoices[key] != nil &&
			!slices.Contains(configChoices[key], value.AsString()):
			failures = append(failures, p.CheckFailure{
				Property: key,
				Reason: fmt.Sprintf("%s must be one of %s, not %q", key,
					strings.Join(configChoices[key], ", "), value.AsString()),
			})
		case value.IsString():
			*field = value.AsString()
		default:
			failures = append(failures, p.CheckFailure{
				Property: key,
				Reason:   fmt.Sprintf("%s must be a string, not %s", key, validate.KindOf(value)),
			})
		}
	}
	for key, field := range fields {
		if *field != "" || slices.Contains(cfg.Unknown, key) || vars[key].DefaultInfo == nil {
			continue
		}
		for _, env := range vars[key].DefaultInfo.Environment {
			if v := getenv(env); v != "" {
				*field = v
				break
			}
		}
	}
	if cfg.LookupTimeout != "" {
		d, err := time.ParseDuration(cfg.LookupTimeout)
		if err != nil || d <= 0 {
			failures = append(failures, p.CheckFailure{
				Property: "lookupTimeout",
				Reason:   fmt.Sprintf("lookupTimeout must be a positive duration such as 30s or 2m, not %q", cfg.LookupTimeout),
			})
		}
		cfg.Google.Timeout = d
	}
	return cfg, failures, warnings
}

// markSecrets returns the arguments with every value schema.json calls secret marked
// secret, so the engine never stores or shows it in plain text.
func markSecrets(args property.Map) property.Map {
	vars := spec.MustLoad().Config.Variables
	out := make(map[string]property.Value, args.Len())
	for key, value := range args.All {
		if vars[key].Secret && !value.IsNull() {
			value = value.WithSecret(true)
		}
		out[key] = value
	}
	return property.NewMap(out)
}
