package google

import "github.com/pulumi/pulumi/sdk/v3/go/common/tokens"

// FunctionsRetrying is Functions with another retry policy than the lookups' own, for
// tests that run the retries out quickly (no setting sets the policy).
func FunctionsRetrying(config func() Config, policy RetryPolicy) map[tokens.Type]Function {
	return functions(config, policy)
}
