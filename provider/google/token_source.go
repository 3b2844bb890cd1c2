package google

import (
	"context"

	"golang.org/x/oauth2"
)

// SetsCredentials tells whether the configuration names Google credentials of its
// own: the accessToken, credentials or impersonateServiceAccount setting (or one of
// their environment variables). Without them the lookups use Application Default
// Credentials.
func (c Config) SetsCredentials() bool {
	return c.AccessToken != "" || c.Credentials != "" || c.ImpersonateServiceAccount != ""
}

// TokenSource returns a source of OAuth 2.0 access tokens for scopes made from the
// credentials the lookups use, in the same precedence (see the package
// documentation), and a description of them that reveals no secret. The provider's
// Kubernetes client asks it for the tokens of a GKE cluster. An access token (the
// accessToken setting) has the scopes it was made with; impersonated tokens have
// scopes. The source outlives ctx: ctx's values are kept, not its cancellation.
func TokenSource(ctx context.Context, cfg Config, scopes []string) (oauth2.TokenSource, string, error) {
	creds, err := newCredentials(context.WithoutCancel(ctx), cfg, scopes)
	if err != nil {
		return nil, "", err
	}
	return creds.tokens, creds.describe, nil
}
