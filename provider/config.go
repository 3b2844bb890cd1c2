package provider

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"golang.org/x/oauth2"

	"github.com/endpoints-provider/pulumi-endpoints/provider/google"
	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// The provider configuration: the typed Config and how it is parsed from the engine's
// arguments and the environment, and the CheckConfig and Configure methods that use
// it. What is recorded of the cluster, and DiffConfig, are in identity.go.

// Config is the typed provider configuration. Every key of schema.json's
// config.variables sets exactly one field (a test holds the two together).
type Config struct {
	Kube   kube.Config
	Google google.Config
	// Unknown lists keys whose values are not known yet (a preview whose provider
	// configuration depends on other resources' outputs).
	Unknown []string
}

// fields maps each configuration key to the field it sets: a *string, *float64, *int,
// *bool or *time.Duration, which decides the values the key accepts.
func (c *Config) fields() map[string]any {
	return map[string]any{
		"kubeconfig":                    &c.Kube.Kubeconfig,
		"context":                       &c.Kube.Context,
		"namespace":                     &c.Kube.Namespace,
		"deletePropagationPolicy":       &c.Kube.DeletePropagationPolicy,
		"clusterIdentifier":             &c.Kube.ClusterIdentifier,
		"renderDirectory":               &c.Kube.RenderDirectory,
		"qps":                           &c.Kube.QPS,
		"burst":                         &c.Kube.Burst,
		"requestTimeout":                &c.Kube.RequestTimeout,
		"deleteUnreachable":             &c.Kube.DeleteUnreachable,
		"skipUpdateUnreachable":         &c.Kube.SkipUpdateUnreachable,
		"suppressDeprecationWarnings":   &c.Kube.SuppressDeprecationWarnings,
		"refreshBeforeUpdate":           &c.Kube.RefreshBeforeUpdate,
		"cloudCredentials":              &c.Kube.CloudCredentials,
		"project":                       &c.Google.Project,
		"credentials":                   &c.Google.Credentials,
		"accessToken":                   &c.Google.AccessToken,
		"impersonateServiceAccount":     &c.Google.ImpersonateServiceAccount,
		"migrationCenterCustomEndpoint": &c.Google.MigrationCenterEndpoint,
		"beyondcorpCustomEndpoint":      &c.Google.BeyondcorpEndpoint,
		"lookupTimeout":                 &c.Google.Timeout,
		"billingProject":                &c.Google.BillingProject,
		"userProjectOverride":           &c.Google.UserProjectOverride,
		"requestReason":                 &c.Google.RequestReason,
		"appendUserAgent":               &c.Google.AppendUserAgent,
	}
}

// configChoices are the keys whose value must be one of a few words.
var configChoices = map[string][]string{
	"deletePropagationPolicy": {"Background", "Foreground", "Orphan"},
	"cloudCredentials":        cloudauth.ModeNames(),
}

// configRules are the range rules of numeric keys: each returns the rule a value
// breaks, or "".
var configRules = map[string]func(float64) string{
	"qps": func(v float64) string {
		if v <= 0 {
			return "must be a number greater than 0 (requests per second)"
		}
		return ""
	},
	"burst": func(v float64) string {
		if v < 1 {
			return "must be an integer of at least 1"
		}
		return ""
	},
}

// engineKeys are provider inputs the engine itself adds; they are not configuration
// (nor are keys with a "__" prefix, which the engine, the provider framework and
// CheckConfig's records reserve).
var engineKeys = []string{"version", "pluginDownloadURL"}

// parseConfig reads the configuration from the engine's arguments, then falls back to
// the environment variables schema.json names for each key. Numbers and booleans are
// accepted as such or as strings (environment variables, stack configuration and the
// SDKs' provider resources send strings). It returns one failure per malformed key
// and one warning per key the provider does not know.
func parseConfig(args property.Map, getenv func(string) string) (Config, []p.CheckFailure, []string) {
	var (
		cfg      Config
		failures []p.CheckFailure
		warnings []string
	)
	vars := spec.MustLoad().Config.Variables
	fields := cfg.fields()
	set := map[string]bool{}
	// reject records why the value of key is not accepted.
	reject := func(key, reason string) {
		failures = append(failures, p.CheckFailure{Property: key, Reason: reason})
	}
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
		default:
			if reason := setField(key, field, value); reason != "" {
				reject(key, reason)
			}
			set[key] = true
		}
	}
	fromEnv := cfg.fromEnvironment(func(key string) bool { return set[key] || slices.Contains(cfg.Unknown, key) },
		getenv, reject)
	if env := getenv("KUBECONFIG"); cfg.Kube.Kubeconfig == env && strings.ContainsRune(env, filepath.ListSeparator) {
		// The SDKs' provider resources copy KUBECONFIG into the setting: it is still
		// the list it was.
		cfg.Kube.Kubeconfig, cfg.Kube.KubeconfigPaths = "", kubeconfigList(env)
	}
	// The SDKs' provider resources copy USER_PROJECT_OVERRIDE into the setting: it
	// still comes from the environment.
	envOverride, _ := strconv.ParseBool(strings.TrimSpace(getenv("USER_PROJECT_OVERRIDE")))
	checkGoogleHeaders(cfg, set["userProjectOverride"] && !envOverride, fromEnv, reject)
	return cfg, failures, warnings
}

// fromEnvironment sets each key that skip does not exclude from the first of the
// environment variables schema.json names for it that is set, and returns the
// variable each key was read from.
func (c *Config) fromEnvironment(skip func(key string) bool, getenv func(string) string,
	reject func(key, reason string),
) map[string]string {
	vars := spec.MustLoad().Config.Variables
	fromEnv := map[string]string{}
	for key, field := range c.fields() {
		if skip(key) || vars[key].DefaultInfo == nil {
			continue
		}
		for _, env := range vars[key].DefaultInfo.Environment {
			v := getenv(env)
			if v == "" {
				continue
			}
			if key == "kubeconfig" {
				// KUBECONFIG is a list of files, merged as kubectl merges them.
				c.Kube.KubeconfigPaths = kubeconfigList(v)
				break
			}
			if reason := setField(key, field, property.New(v)); reason != "" {
				reject(key, fmt.Sprintf("%s (from the %s environment variable)", reason, env))
			}
			fromEnv[key] = env
			break
		}
	}
	return fromEnv
}

// checkGoogleHeaders checks the settings the Google lookups send in headers. A
// userProjectOverride set to true in the provider's configuration (explicitOverride)
// needs a billingProject; one from the environment fails only the lookups (see
// google.ErrNoBillingProject), as that variable may be meant for other providers.
func checkGoogleHeaders(cfg Config, explicitOverride bool, fromEnv map[string]string, reject func(key, reason string)) {
	headers := map[string]string{
		"billingProject":  cfg.Google.BillingProject,
		"requestReason":   cfg.Google.RequestReason,
		"appendUserAgent": cfg.Google.AppendUserAgent,
	}
	for _, key := range slices.Sorted(maps.Keys(headers)) {
		if strings.IndexFunc(headers[key], func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) < 0 {
			continue
		}
		reason := key + " must not contain line breaks or other control characters: it is sent in an HTTP header"
		if env := fromEnv[key]; env != "" {
			reason += fmt.Sprintf(" (from the %s environment variable)", env)
		}
		reject(key, reason)
	}
	if explicitOverride && cfg.Google.UserProjectOverride && cfg.Google.BillingProject == "" &&
		!slices.Contains(cfg.Unknown, "billingProject") {
		reject("billingProject", google.ErrNoBillingProject.Error())
	}
}

// setField sets one field from a value and returns the rule the value breaks, if any.
// A message shows a value only when neither the value nor the setting is secret.
func setField(key string, field any, value property.Value) string {
	switch field := field.(type) {
	case *string:
		return setString(key, field, value)
	case *float64:
		v, reason := number(key, value, "a number")
		if reason != "" {
			return reason
		}
		if rule := configRules[key]; rule != nil && rule(v) != "" {
			return fmt.Sprintf("%s %s, not %s", key, rule(v), shownNumber(key, value, v))
		}
		*field = v
	case *int:
		v, reason := number(key, value, "an integer")
		if reason != "" {
			return reason
		}
		if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
			return fmt.Sprintf("%s must be an integer, not %s", key, shownNumber(key, value, v))
		}
		if rule := configRules[key]; rule != nil && rule(v) != "" {
			return fmt.Sprintf("%s %s, not %s", key, rule(v), shownNumber(key, value, v))
		}
		*field = int(v)
	case *bool:
		return setBool(key, field, value)
	case *time.Duration:
		return setDuration(key, field, value)
	default:
		return fmt.Sprintf("internal error: configuration key %s has a field of type %T", key, field)
	}
	return ""
}

// setString sets a string setting, one of configChoices' words where it names some.
func setString(key string, field *string, value property.Value) string {
	if !value.IsString() {
		return fmt.Sprintf("%s must be a string, not %s", key, shown(key, value))
	}
	s := value.AsString()
	if choices := configChoices[key]; s != "" && choices != nil && !slices.Contains(choices, s) {
		return fmt.Sprintf("%s must be one of %s, not %s", key, strings.Join(choices, ", "), shown(key, value))
	}
	*field = s
	return ""
}

// setBool sets a boolean setting from a boolean or a string such as "true".
func setBool(key string, field *bool, value property.Value) string {
	switch {
	case value.IsBool():
		*field = value.AsBool()
	case value.IsString():
		b, err := strconv.ParseBool(strings.TrimSpace(value.AsString()))
		if err != nil {
			return fmt.Sprintf("%s must be true or false, not %s", key, shown(key, value))
		}
		*field = b
	default:
		return fmt.Sprintf("%s must be true or false, not %s", key, shown(key, value))
	}
	return ""
}

// durationRule is what a duration setting takes.
const durationRule = "a positive duration such as 30s or 2m"

// setDuration sets a duration setting from a string such as "30s"; an empty string
// leaves the default. A number is refused: it names no unit, and a program in YAML,
// Python or JavaScript could mean seconds or milliseconds by it.
func setDuration(key string, field *time.Duration, value property.Value) string {
	switch {
	case value.IsNumber() && !hidden(key, value):
		n := strconv.FormatFloat(value.AsNumber(), 'g', -1, 64)
		return fmt.Sprintf("%s must be %s, not the number %s: give the unit, such as %q for %s seconds",
			key, durationRule, n, n+"s", n)
	case !value.IsString():
		return fmt.Sprintf("%s must be %s, not %s", key, durationRule, shown(key, value))
	}
	s := strings.TrimSpace(value.AsString())
	if s == "" {
		return "" // the default
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Sprintf("%s must be %s, not %s", key, durationRule, shown(key, value))
	}
	*field = d
	return ""
}

// number reads a number given as such or as a string.
func number(key string, value property.Value, what string) (float64, string) {
	var v float64
	switch {
	case value.IsNumber():
		v = value.AsNumber()
	case value.IsString():
		f, err := strconv.ParseFloat(strings.TrimSpace(value.AsString()), 64)
		if err != nil {
			return 0, fmt.Sprintf("%s must be %s, not %s", key, what, shown(key, value))
		}
		v = f
	default:
		return 0, fmt.Sprintf("%s must be %s, not %s", key, what, shown(key, value))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Sprintf("%s must be a finite number, not %s", key, shownNumber(key, value, v))
	}
	return v, ""
}

// hidden tells whether a setting's value must not be shown: the program marked it
// secret, or schema.json calls the setting secret.
func hidden(key string, value property.Value) bool {
	return value.Secret() || spec.MustLoad().Config.Variables[key].Secret
}

// shown is a setting's value in a message: a string quoted, else its kind; a secret
// value by its kind alone, such as "a secret string".
func shown(key string, value property.Value) string {
	switch {
	case hidden(key, value):
		kind := spec.KindOf(value)
		if _, rest, ok := strings.Cut(kind, " "); ok && (strings.HasPrefix(kind, "a ") || strings.HasPrefix(kind, "an ")) {
			kind = rest
		}
		return "a secret " + kind
	case value.IsString():
		return strconv.Quote(value.AsString())
	}
	return spec.KindOf(value)
}

// shownNumber is the number v read from a setting's value, in a message: by its kind
// alone when the value is secret.
func shownNumber(key string, value property.Value, v float64) string {
	if hidden(key, value) {
		return shown(key, value)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// kubeconfigList splits a KUBECONFIG value into its files, as kubectl does.
func kubeconfigList(v string) []string {
	var paths []string
	for _, path := range filepath.SplitList(v) {
		if path != "" {
			paths = append(paths, path)
		}
	}
	return paths
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

// checkConfig validates the configuration and records, under reserved keys, which
// cluster the kubeconfig reaches (see identity.go): DiffConfig compares it, and the
// provider configured from an old state reaches the cluster its objects are on.
func (s *server) checkConfig(ctx context.Context, req p.CheckRequest) (p.CheckResponse, error) {
	cfg, failures, warnings := parseConfig(req.Inputs, s.getenv)
	for _, w := range warnings {
		secret.Logger(ctx).Warning(w)
	}
	inputs := markSecrets(req.Inputs)
	for _, key := range []string{clusterKey, kubeconfigKey} {
		inputs = inputs.Delete(key)
	}
	if len(failures) == 0 {
		inputs = recordCluster(ctx, inputs, cfg)
	}
	return p.CheckResponse{Inputs: inputs, Failures: failures}, nil
}

// configure installs the configuration the engine sends (or the newer one DiffConfig
// handed over, see sameClusterInputs), with the cluster CheckConfig recorded in it:
// the Kubernetes client reaches that cluster (see kube.Config.ClusterRecord).
func (s *server) configure(ctx context.Context, req p.ConfigureRequest) error {
	args := s.sameCluster.claim(req.Args)
	cfg, failures, warnings := parseConfig(args, s.getenv)
	for _, w := range warnings {
		secret.Logger(ctx).Warning(w)
	}
	if len(failures) > 0 {
		reasons := make([]string, len(failures))
		for i, f := range failures {
			reasons[i] = f.Reason
		}
		return fmt.Errorf("invalid provider configuration: %s", strings.Join(reasons, "; "))
	}
	rec := clusterRecordOf(args)
	cfg.Kube.ClusterRecord = rec.ClusterRecord
	if rec.known() {
		// The objects are where CheckConfig recorded: a render directory, or a cluster
		// (see identity.go), whatever the environment says now.
		cfg.Kube.RenderDirectory = rec.Directory
	}
	s.setConfig(cfg)
	s.mu.Lock()
	s.configured = &rec
	s.mu.Unlock()
	return nil
}

// setConfig installs a configuration and forgets the clients built from the previous
// one; new clients are built on first use.
func (s *server) setConfig(cfg Config) {
	userAgent := fmt.Sprintf("pulumi-resource-%s/%s", Name, Version)
	cfg.Kube.UserAgent = userAgent
	cfg.Google.UserAgent = userAgent
	if cfg.Google.SetsCredentials() {
		// A GKE kubeconfig's tokens made in process use the provider's Google settings.
		g := cfg.Google
		cfg.Kube.GoogleTokens = func(ctx context.Context, scopes []string) (oauth2.TokenSource, string, error) {
			return google.TokenSource(ctx, g, scopes)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.config = cfg
	s.kube.Configure(cfg.Kube)
}

// currentConfig returns the configuration in force.
func (s *server) currentConfig() Config {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.config
}
