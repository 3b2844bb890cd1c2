//go:build !endpoints_no_cloud_credentials

package cloudauth

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

type eksSource struct {
	// source is the AWS SDK's name of where the last credentials came from
	// (EnvConfigCredentials, SharedConfigCredentials: <file>, EC2RoleProvider...).
	mu       sync.Mutex
	source   string
	presign  *sts.PresignClient
	creds    *aws.CredentialsCache
	cluster  string
	describe string
}

func newEKS(ctx context.Context, p Plugin, o Options) (Source, error) {
	var opts []func(*config.LoadOptions) error
	if p.Region != "" {
		opts = append(opts, config.WithRegion(p.Region))
	}
	if p.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(p.Profile))
	}
	if o.HTTPClient != nil {
		opts = append(opts, config.WithHTTPClient(o.HTTPClient))
	}
	where := p.Where(o.Server)
	cfg, err := config.LoadDefaultConfig(context.WithoutCancel(ctx), opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: loading the AWS configuration%s: %w", where, profileOf(p), err)
	}
	if cfg.Region == "" {
		cfg.Region = eksDefaultRegion
	}
	if keys := envKeys(p); keys != nil {
		cfg.Credentials = keys
	}
	from := "the AWS default credential chain" + profileOf(p)
	if web := webIdentityOf(p, cfg); web != "" {
		from = web
	}
	if p.RoleARN != "" {
		provider := stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), p.RoleARN)
		cfg.Credentials = aws.NewCredentialsCache(provider)
		from = fmt.Sprintf("role %s assumed with %s", p.RoleARN, from)
	}
	creds, ok := cfg.Credentials.(*aws.CredentialsCache)
	if !ok {
		creds = aws.NewCredentialsCache(cfg.Credentials)
		cfg.Credentials = creds
	}
	client := sts.NewFromConfig(cfg, func(o *sts.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Build.Add(clusterHeader{cluster: p.Cluster}, middleware.After)
		})
	})
	return &eksSource{
		presign:  sts.NewPresignClient(client),
		creds:    creds,
		cluster:  p.Cluster,
		describe: fmt.Sprintf("%s (region %s) with %s", where, cfg.Region, from),
	}, nil
}

// webIdentityOf names the role and token file of the web identity the default chain
// took from the environment (AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE), which STS's
// refusals do not name; "" when the chain took other credentials.
func webIdentityOf(p Plugin, cfg aws.Config) string {
	// A profile of the block is the chain's first choice, before the environment.
	if p.Profile != "" || !aws.IsCredentialsProvider(cfg.Credentials, (*stscreds.WebIdentityRoleProvider)(nil)) {
		return ""
	}
	env, err := config.NewEnvConfig()
	if err != nil || env.WebIdentityTokenFilePath == "" {
		return ""
	}
	return fmt.Sprintf("role %s assumed with the web identity token of %s (AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE)",
		env.RoleARN, env.WebIdentityTokenFilePath)
}

// envKeys is the environment's access keys when the AWS CLI would sign with them
// rather than with the profile the block's AWS_PROFILE names (the SDK, given that
// profile by the provider, would take the profile's), else nil.
func envKeys(p Plugin) aws.CredentialsProvider {
	if !p.ProfileFromEnv {
		return nil
	}
	env, err := config.NewEnvConfig()
	if err != nil || !env.Credentials.HasKeys() {
		return nil
	}
	return credentials.StaticCredentialsProvider{Value: env.Credentials}
}

// clusterHeader adds the cluster's header and X-Amz-Expires to the request before it
// is presigned, so that both are signed.
type clusterHeader struct{ cluster string }

func (clusterHeader) ID() string { return "EKSClusterHeader" }

func (m clusterHeader) HandleBuild(ctx context.Context, in middleware.BuildInput, next middleware.BuildHandler) (
	middleware.BuildOutput, middleware.Metadata, error,
) {
	req, ok := in.Request.(*smithyhttp.Request)
	if !ok {
		return middleware.BuildOutput{}, middleware.Metadata{}, fmt.Errorf("internal error: STS request of type %T", in.Request)
	}
	req.Header.Set(EKSClusterHeader, m.cluster)
	q := req.URL.Query()
	q.Set("X-Amz-Expires", eksPresignExpires)
	req.URL.RawQuery = q.Encode()
	return next.HandleBuild(ctx, in)
}

func (s *eksSource) Cloud() Cloud { return EKS }

func (s *eksSource) Describe() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.source == "" {
		return s.describe
	}
	return fmt.Sprintf("%s (credentials from %s)", s.describe, s.source)
}

func (s *eksSource) renew() { s.creds.Invalidate() }

func (s *eksSource) Token(ctx context.Context) (Token, error) {
	creds, err := s.creds.Retrieve(ctx)
	if err != nil {
		return Token{}, fmt.Errorf("getting AWS credentials for the %s: %w", s.describe, err)
	}
	s.mu.Lock()
	s.source = creds.Source
	s.mu.Unlock()
	signed, err := s.presign.PresignGetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return Token{}, fmt.Errorf("presigning STS GetCallerIdentity for the %s (credentials from %s): %w", s.describe, creds.Source, err)
	}
	u, err := url.Parse(signed.URL)
	if err != nil {
		return Token{}, fmt.Errorf("internal error: the presigned STS URL does not parse: %w", err)
	}
	signedAt, err := time.Parse("20060102T150405Z", u.Query().Get("X-Amz-Date"))
	if err != nil {
		return Token{}, fmt.Errorf("internal error: the presigned STS URL has no X-Amz-Date: %w", err)
	}
	return Token{
		Value:  EKSPrefix + base64.RawURLEncoding.EncodeToString([]byte(signed.URL)),
		Expiry: signedAt.Add(EKSLifetime),
	}, nil
}
