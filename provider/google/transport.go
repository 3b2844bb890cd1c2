package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strings"

	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/oauth2adapt"
	"golang.org/x/oauth2"
	"google.golang.org/api/impersonate"
	"google.golang.org/api/option"
	"google.golang.org/api/option/internaloption"
	htransport "google.golang.org/api/transport/http"
)

// clients are the API clients built from one Config. They are safe for concurrent use.
type clients struct {
	// migrationHTTP is an authorized HTTP client for the Migration Center API at
	// migrationBase (which ends in "/").
	migrationHTTP *http.Client
	migrationBase string
	// beyondcorp is an authorized HTTP client for the BeyondCorp API at beyondcorpBase
	// (which ends in "/").
	beyondcorp     *http.Client
	beyondcorpBase string
	// credentials describes the credentials in use, without secrets, for logs.
	credentials string
}

// newClients builds the API clients of cfg. ctx carries values only: the clients
// outlive it, so its cancellation must not reach them.
func newClients(ctx context.Context, cfg Config) (*clients, error) {
	migrationBase, err := endpoint(cfg.MigrationCenterEndpoint, DefaultMigrationCenterEndpoint, "migrationCenterCustomEndpoint")
	if err != nil {
		return nil, err
	}
	beyondcorpBase, err := endpoint(cfg.BeyondcorpEndpoint, DefaultBeyondcorpEndpoint, "beyondcorpCustomEndpoint")
	if err != nil {
		return nil, err
	}
	creds, err := newCredentials(ctx, cfg, []string{cloudPlatformScope})
	if err != nil {
		return nil, err
	}
	// Both clients are built the way the generated clients build theirs, on one set of
	// credentials, and each lookup makes its single GET by hand on its transport: the
	// BeyondCorp v1 proxy-config getIamPolicy method exists only in old releases of the
	// generated client, and the generated Migration Center client links thousands of
	// types and methods for one call (several MiB of resident memory in every plugin
	// process). The endpoint is always a full URL, so no default endpoint is needed.
	// The transport sets the User-Agent, X-Goog-User-Project and X-Goog-Request-Reason
	// headers of every request, retries included, over any the request carries. A
	// quota project given here wins over the quota_project_id of a credentials file,
	// which the transport sends otherwise.
	opts := []option.ClientOption{
		creds.option,
		option.WithScopes(cloudPlatformScope),
		option.WithUserAgent(cfg.userAgent()),
		internaloption.WithDefaultScopes(cloudPlatformScope),
		internaloption.EnableNewAuthLibrary(),
	}
	if project := cfg.quotaProject(); project != "" {
		opts = append(opts, option.WithQuotaProject(project))
	}
	if cfg.RequestReason != "" {
		opts = append(opts, option.WithRequestReason(cfg.RequestReason))
	}
	httpClient := func(base string) (*http.Client, error) {
		hc, _, err := htransport.NewClient(ctx, slices.Concat(opts, []option.ClientOption{option.WithEndpoint(base)})...)
		return hc, err
	}
	migrationHTTP, err := httpClient(migrationBase)
	if err != nil {
		return nil, fmt.Errorf("building the Migration Center API client: %w", err)
	}
	beyondcorp, err := httpClient(beyondcorpBase)
	if err != nil {
		return nil, fmt.Errorf("building the BeyondCorp API client: %w", err)
	}
	return &clients{
		migrationHTTP:  migrationHTTP,
		migrationBase:  migrationBase,
		beyondcorp:     beyondcorp,
		beyondcorpBase: beyondcorpBase,
		credentials:    creds.describe,
	}, nil
}

// credentialSource is the credentials option shared by both API clients, so they share
// one token cache, and the same credentials as a token source (see TokenSource).
type credentialSource struct {
	option option.ClientOption
	tokens oauth2.TokenSource
	// describe names the credentials without revealing them.
	describe string
}

// newCredentials resolves the credentials of cfg, for scopes. Precedence, highest
// first: the access token, the credentials key (file path or JSON contents),
// Application Default Credentials. A service account to impersonate is acted as with
// whichever applies: the impersonated tokens have scopes, the ones acting have the
// cloud-platform scope that the IAM Service Account Credentials API asks for.
func newCredentials(ctx context.Context, cfg Config, scopes []string) (credentialSource, error) {
	account := cfg.ImpersonateServiceAccount
	if account == "" {
		return baseCredentials(cfg, scopes)
	}
	base, err := baseCredentials(cfg, []string{cloudPlatformScope})
	if err != nil {
		return credentialSource{}, err
	}
	ts, err := impersonate.CredentialsTokenSource(ctx, impersonate.CredentialsConfig{
		TargetPrincipal: account,
		Scopes:          scopes,
	}, base.option)
	if err != nil {
		return credentialSource{}, fmt.Errorf("impersonating service account %s with %s: %w", account, base.describe, err)
	}
	tokens := impersonated{ts: ts, account: account}
	return credentialSource{
		option:   option.WithTokenSource(tokens),
		tokens:   tokens,
		describe: fmt.Sprintf("%s, impersonating service account %s", base.describe, account),
	}, nil
}

// credentialTypes are the key types the credentials setting accepts: those of
// Application Default Credentials files.
var credentialTypes = []credentials.CredType{
	credentials.ServiceAccount,
	credentials.AuthorizedUser,
	credentials.ImpersonatedServiceAccount,
	credentials.ExternalAccount,
	credentials.ExternalAccountAuthorizedUser,
}

func baseCredentials(cfg Config, scopes []string) (credentialSource, error) {
	switch {
	case cfg.AccessToken != "":
		ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: cfg.AccessToken, TokenType: "Bearer"})
		return credentialSource{option: option.WithTokenSource(ts), tokens: ts,
			describe: "the access token of the provider's accessToken setting"}, nil
	case cfg.Credentials != "":
		key, from, err := readKey(cfg.Credentials)
		if err != nil {
			return credentialSource{}, err
		}
		typ, err := keyType(key)
		if err != nil {
			return credentialSource{}, err
		}
		creds, err := credentials.NewCredentialsFromJSON(typ, key, &credentials.DetectOptions{Scopes: scopes, TokenURL: userTokenURL(typ, key)})
		if err != nil {
			return credentialSource{}, fmt.Errorf("loading the %s key %s: %w", typ, from, err)
		}
		return credentialSource{option: option.WithAuthCredentials(creds), tokens: oauth2adapt.TokenSourceFromTokenProvider(creds),
			describe: fmt.Sprintf("the %s key %s", typ, from)}, nil
	default:
		creds, err := credentials.DetectDefault(&credentials.DetectOptions{Scopes: scopes})
		if err != nil {
			return credentialSource{}, fmt.Errorf("no Google Cloud credentials: set the provider's accessToken or credentials, "+
				"or set up Application Default Credentials (gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS): %w", err)
		}
		return credentialSource{option: option.WithAuthCredentials(creds), tokens: oauth2adapt.TokenSourceFromTokenProvider(creds),
			describe: "Application Default Credentials"}, nil
	}
}

// readKey returns the key of the credentials setting: its value when that is JSON,
// else the contents of the file it names. Neither the value nor the path is repeated in
// errors or descriptions: a mistyped value may be a secret.
func readKey(setting string) ([]byte, string, error) {
	if strings.HasPrefix(strings.TrimSpace(setting), "{") {
		return []byte(setting), "in the provider's credentials setting", nil
	}
	key, err := os.ReadFile(setting) //nolint:gosec // reading the file the user named is the point
	if err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err
		}
		return nil, "", fmt.Errorf("the provider's credentials setting is neither a JSON key nor the path of a readable key file: %w", err)
	}
	return key, "in the file named by the provider's credentials setting", nil
}

// keyType returns the "type" of a JSON key, checked against credentialTypes.
func keyType(key []byte) (credentials.CredType, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(key, &head); err != nil {
		return "", fmt.Errorf("the provider's credentials setting is not a valid JSON key (its contents are secret and not shown): %w", err)
	}
	typ := credentials.CredType(head.Type)
	if !slices.Contains(credentialTypes, typ) {
		names := make([]string, len(credentialTypes))
		for i, t := range credentialTypes {
			names[i] = string(t)
		}
		return "", fmt.Errorf("the key in the provider's credentials setting has type %.40q; supported types: %s",
			head.Type, strings.Join(names, ", "))
	}
	return typ, nil
}

// userTokenURL is the token_uri of an authorized_user key, as Google's Python auth
// library honours it; "" (Google's token endpoint) when the key names none, as those
// gcloud writes do. Other key types carry their token endpoint themselves.
func userTokenURL(typ credentials.CredType, key []byte) string {
	if typ != credentials.AuthorizedUser {
		return ""
	}
	var head struct {
		TokenURI string `json:"token_uri"`
	}
	if err := json.Unmarshal(key, &head); err != nil {
		return ""
	}
	return head.TokenURI
}

// impersonated names the service account in the errors of an impersonated token source.
type impersonated struct {
	ts      oauth2.TokenSource
	account string
}

// Token returns a token for the impersonated service account.
func (i impersonated) Token() (*oauth2.Token, error) {
	tok, err := i.ts.Token()
	if err != nil {
		return nil, fmt.Errorf("impersonating service account %s: %w", i.account, err)
	}
	return tok, nil
}
