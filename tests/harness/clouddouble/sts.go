package clouddouble

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The EKS token's parts, as the cluster's authenticator reads them.
const (
	eksPrefix        = "k8s-aws-v1."
	eksClusterHeader = "x-k8s-aws-id"
	// presignedLifetime is how long STS accepts a presigned GetCallerIdentity URL after
	// its X-Amz-Date, whatever its X-Amz-Expires says.
	presignedLifetime = 15 * time.Minute
	stsNamespace      = "https://sts.amazonaws.com/doc/2011-06-15/"
	amzDateFormat     = "20060102T150405Z"
)

// AWSKey is a key pair the STS double knows, and the identity it stands for.
type AWSKey struct {
	AccessKeyID, SecretAccessKey, SessionToken string
	// ARN, UserID and Account are what GetCallerIdentity answers for the key.
	ARN, UserID, Account string
	// Expires, when not zero, is when the key stops working (assumed roles).
	Expires time.Time
}

// STS is the AWS Security Token Service double. It listens on 127.0.0.1 over plain
// HTTP; point the SDK at it with AWS_ENDPOINT_URL_STS.
type STS struct {
	// URL is the base URL, ending in "/".
	URL string
	srv *httptest.Server

	mu    sync.Mutex
	keys  map[string]AWSKey
	roles map[string]bool
	// webIdentities holds the web identity token each role trusts (AddWebIdentityRole).
	webIdentities map[string]WebIdentity
	// Calls counts the answers by action ("GetCallerIdentity", "AssumeRole") and
	// failures by error code.
	calls map[string]int
	now   func() time.Time
	// roleSession, when not zero, is how long AssumeRole's sessions last.
	roleSession time.Duration
}

// StartSTS starts the double.
func StartSTS() *STS {
	s := &STS{keys: map[string]AWSKey{}, roles: map[string]bool{}, calls: map[string]int{}, now: time.Now}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/"
	return s
}

// Close stops the double.
func (s *STS) Close() { s.srv.Close() }

// SetNow replaces the double's clock (to test expiry).
func (s *STS) SetNow(now func() time.Time) {
	s.mu.Lock()
	s.now = now
	s.mu.Unlock()
}

// SetRoleSessionLifetime makes the sessions AssumeRole grants from now on last d,
// whatever DurationSeconds asks (STS's shortest is 15 minutes): a session that ends
// while a token signed with its credentials is still kept by the client.
func (s *STS) SetRoleSessionLifetime(d time.Duration) {
	s.mu.Lock()
	s.roleSession = d
	s.mu.Unlock()
}

// Calls returns how many times each action answered, and each error code was sent.
func (s *STS) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

func randomID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + strings.ToUpper(hex.EncodeToString(b))
}

// AddUser mints a long-term key pair (AKIA...) for IAM user name of account.
func (s *STS) AddUser(account, name string) AWSKey {
	k := AWSKey{
		AccessKeyID: randomID("AKIA", 8), SecretAccessKey: base64.RawStdEncoding.EncodeToString([]byte(randomID("", 20)))[:40],
		ARN: fmt.Sprintf("arn:aws:iam::%s:user/%s", account, name), UserID: randomID("AIDA", 8), Account: account,
	}
	s.mu.Lock()
	s.keys[k.AccessKeyID] = k
	s.mu.Unlock()
	return k
}

// AddRole lets every known key assume roleARN.
func (s *STS) AddRole(roleARN string) {
	s.mu.Lock()
	s.roles[roleARN] = true
	s.mu.Unlock()
}

type stsError struct {
	status        int
	code, message string
}

func (s *STS) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return
	}
	params := r.URL.Query()
	if r.Method == http.MethodPost {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			s.fail(w, r, stsError{400, "MalformedQueryString", "the form body does not parse"})
			return
		}
		for k, v := range form {
			params[k] = v
		}
	}
	if params.Get("Action") == "AssumeRoleWithWebIdentity" {
		// Unsigned: the web identity token is the credential.
		s.assumeRoleWithWebIdentity(w, r, params)
		return
	}
	key, e := s.authenticate(r, body)
	if e != nil {
		s.fail(w, r, *e)
		return
	}
	switch params.Get("Action") {
	case "GetCallerIdentity":
		s.count("GetCallerIdentity")
		s.answer(w, r, "GetCallerIdentity", struct {
			Arn     string `xml:"Arn" json:"Arn"`
			UserID  string `xml:"UserId" json:"UserId"`
			Account string `xml:"Account" json:"Account"`
		}{key.ARN, key.UserID, key.Account})
	case "AssumeRole":
		s.assumeRole(w, r, key, params)
	default:
		s.fail(w, r, stsError{400, "InvalidAction", fmt.Sprintf("Could not find operation %s for version 2011-06-15", params.Get("Action"))})
	}
}

// signed is what a SigV4 signature of a request names: presigned (in the query) or in
// the Authorization header.
type signed struct {
	presigned                                                      bool
	credential, signedHeaders, signature, date, payloadHash, query string
	sessionToken                                                   string
}

// signedOf reads the signature of r, whose body is body.
func signedOf(r *http.Request, body []byte) (signed, *stsError) {
	q := r.URL.Query()
	if q.Get("X-Amz-Signature") != "" {
		if q.Get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" {
			return signed{}, &stsError{400, "IncompleteSignature", "X-Amz-Algorithm must be AWS4-HMAC-SHA256"}
		}
		return signed{presigned: true, credential: q.Get("X-Amz-Credential"), signedHeaders: q.Get("X-Amz-SignedHeaders"),
			signature: q.Get("X-Amz-Signature"), date: q.Get("X-Amz-Date"), payloadHash: sha256Hex(""),
			query: canonicalQuery(q, "X-Amz-Signature"), sessionToken: q.Get("X-Amz-Security-Token")}, nil
	}
	rest, ok := strings.CutPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ")
	if !ok {
		return signed{}, &stsError{403, "MissingAuthenticationToken", "Request is missing Authentication Token"}
	}
	sig := signed{date: r.Header.Get("X-Amz-Date"), payloadHash: sha256Hex(string(body)), query: canonicalQuery(q, ""),
		sessionToken: r.Header.Get("X-Amz-Security-Token")}
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			sig.credential = v
		case "SignedHeaders":
			sig.signedHeaders = v
		case "Signature":
			sig.signature = v
		}
	}
	return sig, nil
}

// authenticate checks the request's SigV4 signature, presigned (in the query) or in the
// Authorization header, and returns the key that signed it.
func (s *STS) authenticate(r *http.Request, body []byte) (AWSKey, *stsError) {
	sig, fail := signedOf(r, body)
	if fail != nil {
		return AWSKey{}, fail
	}
	scope := strings.Split(sig.credential, "/")
	if len(scope) != 5 || scope[3] != "sts" || scope[4] != "aws4_request" {
		return AWSKey{}, &stsError{400, "IncompleteSignature", fmt.Sprintf("Credential %q is not AKID/date/region/sts/aws4_request", sig.credential)}
	}
	s.mu.Lock()
	key, known := s.keys[scope[0]]
	now := s.now()
	s.mu.Unlock()
	if !known {
		return AWSKey{}, &stsError{403, "InvalidClientTokenId", "The security token included in the request is invalid."}
	}
	if !key.Expires.IsZero() && now.After(key.Expires) {
		return AWSKey{}, &stsError{403, "ExpiredToken", "The security token included in the request is expired"}
	}
	if sig.sessionToken != key.SessionToken {
		return AWSKey{}, &stsError{403, "InvalidClientTokenId", "The security token included in the request is invalid."}
	}
	date, err := time.Parse(amzDateFormat, sig.date)
	if err != nil || !strings.HasPrefix(sig.date, scope[1]) {
		return AWSKey{}, &stsError{400, "IncompleteSignature", "X-Amz-Date is missing or does not match the credential scope's date"}
	}
	if sig.presigned && now.After(date.Add(presignedLifetime)) {
		return AWSKey{}, &stsError{403, "AccessDenied", "Request has expired"}
	}
	if !sig.presigned && (now.Sub(date) > 5*time.Minute || date.Sub(now) > 5*time.Minute) {
		return AWSKey{}, &stsError{403, "SignatureDoesNotMatch", "Signature expired: " + sig.date + " is now earlier or later than 5 minutes from now"}
	}
	headers := strings.Split(sig.signedHeaders, ";")
	if !slices.Contains(headers, "host") {
		return AWSKey{}, &stsError{403, "SignatureDoesNotMatch", "the host header is not signed"}
	}
	canonical := canonicalRequest(r, sig.query, headers, sig.payloadHash)
	want := sigv4{secret: key.SecretAccessKey, date: scope[1], region: scope[2], service: "sts"}.signature(sig.date, canonical)
	if !hmac.Equal([]byte(want), []byte(sig.signature)) {
		return AWSKey{}, &stsError{403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. " +
			"Check your AWS Secret Access Key and signing method. Consult the service documentation for details."}
	}
	return key, nil
}

func (s *STS) assumeRole(w http.ResponseWriter, r *http.Request, caller AWSKey, params url.Values) {
	role, session := params.Get("RoleArn"), params.Get("RoleSessionName")
	s.mu.Lock()
	allowed := s.roles[role]
	s.mu.Unlock()
	if !allowed {
		s.fail(w, r, stsError{403, "AccessDenied", fmt.Sprintf("User: %s is not authorized to perform: sts:AssumeRole on resource: %s", caller.ARN, role)})
		return
	}
	duration := time.Hour
	if d, err := strconv.Atoi(params.Get("DurationSeconds")); err == nil && d > 0 {
		duration = time.Duration(d) * time.Second
	}
	s.mu.Lock()
	if s.roleSession > 0 {
		duration = s.roleSession
	}
	now := s.now()
	s.mu.Unlock()
	k := s.session(role, session, "FwoG", now.Add(duration))
	s.count("AssumeRole")
	s.answer(w, r, "AssumeRole", struct {
		Credentials     roleCredentials `xml:"Credentials"`
		AssumedRoleUser assumedRoleUser `xml:"AssumedRoleUser"`
	}{k.roleCredentials(), k.assumedRoleUser()})
}

// session makes and keeps the temporary key of a session of role named session,
// until expires; its session token starts with tokenPrefix.
func (s *STS) session(role, session, tokenPrefix string, expires time.Time) AWSKey {
	name := role[strings.LastIndex(role, "/")+1:]
	account := strings.Split(role, ":")[4]
	k := AWSKey{
		AccessKeyID: randomID("ASIA", 8), SecretAccessKey: randomID("", 20), SessionToken: tokenPrefix + randomID("", 32),
		ARN:     fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", account, name, session),
		UserID:  randomID("AROA", 8) + ":" + session,
		Account: account, Expires: expires,
	}
	s.mu.Lock()
	s.keys[k.AccessKeyID] = k
	s.mu.Unlock()
	return k
}

// roleCredentials and assumedRoleUser are the Credentials and AssumedRoleUser of the
// answers of the AssumeRole actions.
type roleCredentials struct {
	AccessKeyID     string `xml:"AccessKeyId"`
	SecretAccessKey string `xml:"SecretAccessKey"`
	SessionToken    string `xml:"SessionToken"`
	Expiration      string `xml:"Expiration"`
}

type assumedRoleUser struct {
	Arn           string `xml:"Arn"`
	AssumedRoleID string `xml:"AssumedRoleId"`
}

func (k AWSKey) roleCredentials() roleCredentials {
	return roleCredentials{k.AccessKeyID, k.SecretAccessKey, k.SessionToken, k.Expires.UTC().Format(time.RFC3339)}
}

func (k AWSKey) assumedRoleUser() assumedRoleUser { return assumedRoleUser{k.ARN, k.UserID} }

func (s *STS) count(what string) {
	s.mu.Lock()
	s.calls[what]++
	s.mu.Unlock()
}

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// answer writes <Action>Response, in XML or, when the request accepts it, JSON.
func (s *STS) answer(w http.ResponseWriter, r *http.Request, action string, result any) {
	requestID := newRequestID()
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{action + "Response": map[string]any{
			action + "Result":  result,
			"ResponseMetadata": map[string]string{"RequestId": requestID},
		}})
		return
	}
	type metadata struct {
		RequestID string `xml:"RequestId"`
	}
	w.Header().Set("Content-Type", "text/xml")
	_, _ = io.WriteString(w, xml.Header)
	_ = xml.NewEncoder(w).Encode(struct {
		XMLName  xml.Name
		Xmlns    string   `xml:"xmlns,attr"`
		Result   any      `xml:"Result"`
		Metadata metadata `xml:"ResponseMetadata"`
	}{XMLName: xml.Name{Local: action + "Response"}, Xmlns: stsNamespace, Result: resultElement{action + "Result", result}, Metadata: metadata{requestID}})
}

// resultElement names the result element after the action.
type resultElement struct {
	name  string
	inner any
}

func (e resultElement) MarshalXML(enc *xml.Encoder, _ xml.StartElement) error {
	return enc.EncodeElement(e.inner, xml.StartElement{Name: xml.Name{Local: e.name}})
}

func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// fail writes STS's error envelope.
func (s *STS) fail(w http.ResponseWriter, r *http.Request, e stsError) {
	s.count(e.code)
	requestID := newRequestID()
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.status)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"Error":     map[string]string{"Type": "Sender", "Code": e.code, "Message": e.message},
			"RequestId": requestID,
		})
		return
	}
	type errorBody struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(e.status)
	_ = xml.NewEncoder(w).Encode(struct {
		XMLName   xml.Name  `xml:"ErrorResponse"`
		Xmlns     string    `xml:"xmlns,attr"`
		Error     errorBody `xml:"Error"`
		RequestID string    `xml:"RequestId"`
	}{Xmlns: stsNamespace, Error: errorBody{"Sender", e.code, e.message}, RequestID: requestID})
}

// VerifyEKSToken checks an EKS token for cluster the way the cluster's authenticator
// does (aws-iam-authenticator's server): the prefix, the presigned URL's host (this
// double's), path, parameters and signed cluster header, its age, and then the URL
// itself, sent to the double's GetCallerIdentity with the cluster header. It returns
// the caller's ARN.
func (s *STS) VerifyEKSToken(ctx context.Context, token, cluster string) (string, error) {
	raw, ok := strings.CutPrefix(token, eksPrefix)
	if !ok {
		return "", errors.New("the token lacks the k8s-aws-v1. prefix")
	}
	decoded, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return "", fmt.Errorf("the token is not unpadded base64url: %w", err)
	}
	u, err := url.Parse(string(decoded))
	if err != nil {
		return "", fmt.Errorf("the token's URL: %w", err)
	}
	if u.Host != s.srv.Listener.Addr().String() || u.Path != "/" {
		return "", fmt.Errorf("unexpected STS host or path %q in the presigned URL", u.Host+u.Path)
	}
	allowed := map[string]bool{"action": true, "version": true, "x-amz-algorithm": true, "x-amz-credential": true,
		"x-amz-date": true, "x-amz-expires": true, "x-amz-security-token": true, "x-amz-signature": true, "x-amz-signedheaders": true}
	q := u.Query()
	for k, v := range q {
		if !allowed[strings.ToLower(k)] || len(v) != 1 {
			return "", fmt.Errorf("query parameter %q is not allowed or repeated", k)
		}
	}
	if q.Get("Action") != "GetCallerIdentity" {
		return "", fmt.Errorf("the presigned action is %q", q.Get("Action"))
	}
	if !slices.Contains(strings.Split(q.Get("X-Amz-SignedHeaders"), ";"), eksClusterHeader) {
		return "", errors.New("the x-k8s-aws-id header is not signed")
	}
	if n, err := strconv.Atoi(q.Get("X-Amz-Expires")); err != nil || n < 0 || n > 900 {
		return "", fmt.Errorf("X-Amz-Expires %q is not between 0 and 900", q.Get("X-Amz-Expires"))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set(eksClusterHeader, cluster)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("STS answered %d: %s", resp.StatusCode, body)
	}
	var answer struct {
		GetCallerIdentityResponse struct {
			GetCallerIdentityResult struct{ Arn string }
		}
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return "", err
	}
	return answer.GetCallerIdentityResponse.GetCallerIdentityResult.Arn, nil
}
