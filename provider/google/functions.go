package google

import (
	"context"
	"fmt"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/lazy"
	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// Function is one lookup: it validates its arguments and calls the API.
type Function = func(context.Context, property.Map) (p.InvokeResponse, error)

// Functions returns the lookups this package serves, by token. config returns the
// provider configuration in force at the time of each call. No client is built and no
// credential is looked up until a lookup with valid, known arguments runs.
func Functions(config func() Config) map[tokens.Type]Function {
	return functions(config, defaultRetry)
}

// functions returns the lookups, which retry transient failures as policy says.
func functions(config func() Config, policy RetryPolicy) map[tokens.Type]Function {
	l := &lookups{config: config, retry: policy}
	return map[tokens.Type]Function{
		spec.ImportDataFileToken:       l.getImportDataFile,
		spec.ProxyConfigIamPolicyToken: l.getProxyConfigIamPolicy,
	}
}

// lookups holds the clients of the configuration last used, rebuilt when it changes.
type lookups struct {
	config func() Config
	retry  RetryPolicy
	built  lazy.Value[Config, *clients]
}

// clients returns the clients of cfg, building them on first use (see package lazy:
// a failed build is not kept, the next call tries again).
func (l *lookups) clients(ctx context.Context, cfg Config) (*clients, error) {
	return l.built.Get(cfg, func() (*clients, error) {
		c, err := newClients(context.WithoutCancel(ctx), cfg)
		if err != nil {
			return nil, err
		}
		log := secret.Logger(ctx)
		log.Debugf("built Google API clients using %s", c.credentials)
		if cfg.BillingProject != "" && !cfg.UserProjectOverride {
			log.Debugf("the lookups send no X-Goog-User-Project header: billingProject %s is sent only when "+
				"userProjectOverride is true", cfg.BillingProject)
		}
		return c, nil
	}, func(old *clients) {
		old.migrationHTTP.CloseIdleConnections()
		old.beyondcorp.CloseIdleConnections()
	})
}

// plan is a lookup's own checks of its arguments and the request they make. It must
// tolerate unknown arguments: those are absent from args.
type plan[T any] func(a args, cfg Config) (subject, func(context.Context, *clients) (T, error), []p.CheckFailure)

// invoke is the flow every lookup shares: check the arguments, skip the call while
// some are unknown (a preview), then call the API with retries under the lookup's
// timeout and shape its answer into the schema's outputs.
func invoke[T any](
	ctx context.Context, l *lookups, function string, specs []argSpec, in property.Map,
	planned plan[T], outputs func(T) property.Map,
) (p.InvokeResponse, error) {
	cfg := l.config()
	a, failures := parseArgs(function, in, specs)
	subj, call, more := planned(a, cfg)
	if failures = append(failures, more...); len(failures) > 0 {
		return p.InvokeResponse{Failures: failures}, nil
	}
	if a.unknown {
		return p.InvokeResponse{Return: property.Map{}}, nil
	}
	if err := cfg.check(); err != nil {
		return p.InvokeResponse{}, fmt.Errorf("%s: %w", function, err)
	}
	c, err := l.clients(ctx, cfg)
	if err != nil {
		return p.InvokeResponse{}, redact(fmt.Errorf("%s: %w", function, err), cfg)
	}
	timeout := cfg.timeout()
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, timedOut(timeout))
	defer cancel()
	secret.Logger(ctx).Debugf("calling a Google API: %s", subj.action)
	v, err := retry(ctx, l.retry, subj, func(ctx context.Context) (T, error) { return call(ctx, c) })
	if err != nil {
		return p.InvokeResponse{}, redact(withQuotaProjectHint(err, cfg), cfg)
	}
	return p.InvokeResponse{Return: withSecret(outputs(v), anySecret(in))}, nil
}

// timedOut is the cause of a lookup that ran out of time: it names the setting that
// bounds it.
func timedOut(timeout time.Duration) error {
	return fmt.Errorf("the lookup timed out after %s (the provider's lookupTimeout setting, retries included; "+
		"allow more with `pulumi config set endpoints:lookupTimeout 2m`)", timeout)
}
