package cloudauth

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// GKEScopes are the scopes of the access tokens gke-gcloud-auth-plugin answers.
var GKEScopes = []string{
	"https://www.googleapis.com/auth/cloud-platform",
	"https://www.googleapis.com/auth/userinfo.email",
}

type gkeSource struct {
	// build makes the token source again (see renew): the auth library's token source
	// keeps its token until it expires.
	build    func() (oauth2.TokenSource, error)
	mu       sync.Mutex
	ts       oauth2.TokenSource
	describe string
}

// newGKE uses the credentials of o.Google when it is set, else finds Application
// Default Credentials as the auth library does: the key file
// GOOGLE_APPLICATION_CREDENTIALS names (the exec block's env first), gcloud's
// application_default_credentials.json, then the metadata server.
func newGKE(ctx context.Context, p Plugin, o Options) (Source, error) {
	// The token source outlives ctx: keep its values, not its cancellation.
	ctx = context.WithoutCancel(ctx)
	if o.HTTPClient != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, o.HTTPClient)
	}
	cluster := p.Where(o.Server)
	if o.Google != nil {
		ts, from, err := o.Google(ctx, GKEScopes)
		if err != nil {
			return nil, fmt.Errorf("%s: the provider's Google credentials: %w", cluster, err)
		}
		build := func() (oauth2.TokenSource, error) {
			ts, _, err := o.Google(ctx, GKEScopes)
			return ts, err
		}
		return &gkeSource{build: build, ts: ts, describe: fmt.Sprintf("%s with %s", cluster, from)}, nil
	}
	params := google.CredentialsParams{Scopes: GKEScopes}
	var find func() (*google.Credentials, error)
	var from string
	if path := o.getenv(p, "GOOGLE_APPLICATION_CREDENTIALS"); path != "" {
		key, err := os.ReadFile(path) //nolint:gosec // the file ADC names
		if err != nil {
			return nil, fmt.Errorf("%s: reading the key file GOOGLE_APPLICATION_CREDENTIALS names: %w", cluster, err)
		}
		from = fmt.Sprintf("the %s key file %s (GOOGLE_APPLICATION_CREDENTIALS)", keyType(key), path)
		// The file's own type, as ADC reads it; an unknown one fails with the library's error.
		typ := google.CredentialsType(keyType(key))
		find = func() (*google.Credentials, error) {
			return google.CredentialsFromJSONWithTypeAndParams(ctx, key, typ, params)
		}
	} else {
		find = func() (*google.Credentials, error) { return google.FindDefaultCredentialsWithParams(ctx, params) }
	}
	creds, err := find()
	if err != nil {
		if from != "" {
			return nil, fmt.Errorf("%s: %s: %w", cluster, from, err)
		}
		return nil, fmt.Errorf("%s: no Google Application Default Credentials (set GOOGLE_APPLICATION_CREDENTIALS "+
			"to a service account or workload identity federation key file, run gcloud auth application-default login, "+
			"or run on Google Cloud): %w", cluster, err)
	}
	if from == "" {
		from = describeADC(creds)
	}
	build := func() (oauth2.TokenSource, error) {
		c, err := find()
		if err != nil {
			return nil, err
		}
		return c.TokenSource, nil
	}
	return &gkeSource{build: build, ts: creds.TokenSource, describe: fmt.Sprintf("%s with %s", cluster, from)}, nil
}

// describeADC names where FindDefaultCredentials found the credentials.
func describeADC(creds *google.Credentials) string {
	if len(creds.JSON) == 0 {
		return "the metadata server's service account"
	}
	// (The auth library reads gcloud's file under $HOME, whatever CLOUDSDK_CONFIG says.)
	home, _ := os.UserHomeDir()
	file := filepath.Join(home, ".config", "gcloud", "application_default_credentials.json")
	return fmt.Sprintf("the %s credentials of %s", keyType(creds.JSON), file)
}

// keyType is the "type" of a credentials file: service_account, authorized_user,
// external_account, impersonated_service_account...
func keyType(key []byte) string {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(key, &head) != nil || head.Type == "" {
		return "unknown"
	}
	return head.Type
}

func (s *gkeSource) Cloud() Cloud { return GKE }

func (s *gkeSource) Describe() string { return s.describe }

func (s *gkeSource) renew() {
	s.mu.Lock()
	s.ts = nil
	s.mu.Unlock()
}

func (s *gkeSource) Token(context.Context) (Token, error) {
	s.mu.Lock()
	ts := s.ts
	if ts == nil {
		var err error
		if ts, err = s.build(); err != nil {
			s.mu.Unlock()
			return Token{}, fmt.Errorf("getting a token for the %s: %w", s.describe, err)
		}
		s.ts = ts
	}
	s.mu.Unlock()
	tok, err := ts.Token()
	if err != nil {
		return Token{}, fmt.Errorf("getting a token for the %s: %w", s.describe, err)
	}
	return Token{Value: tok.AccessToken, Expiry: tok.Expiry}, nil
}
