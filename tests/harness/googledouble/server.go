package googledouble

import (
	"bytes"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is a running double of the Migration Center and BeyondCorp APIs.
type Server struct {
	// URL is the double's base URL, http://127.0.0.1:PORT/. Use it as the custom endpoint
	// of both APIs: clients append the version path (v1alpha1/, v1/) to it.
	URL string

	token    string
	listener net.Listener
	http     *http.Server

	mu       sync.Mutex
	files    map[string]ImportDataFile
	policies map[string]Policy
	faults   []Fault
	delay    time.Duration
	requests []Request
	keys     map[string]serviceAccountKey
	users    map[string]userCredential
	// userTokens are the access tokens granted to user credentials.
	userTokens map[string]bool
	grants     int
}

// Request is what the double recorded of one API request.
type Request struct {
	Method string
	// Path is the unescaped path; EscapedPath is the path as sent.
	Path        string
	EscapedPath string
	Query       url.Values
	UserAgent   string
	// UserProject and RequestReason are the X-Goog-User-Project and
	// X-Goog-Request-Reason headers, empty when absent.
	UserProject   string
	RequestReason string
	// Authorized says whether the request carried the expected bearer token or one
	// the token endpoint granted to a user credential.
	Authorized bool
}

// Start serves a double on a free port of 127.0.0.1. It expects every API request to
// carry "Authorization: Bearer <token>"; an empty token accepts any request.
func Start(token string) (*Server, error) {
	return Listen("127.0.0.1:0", token)
}

// Listen serves a double on addr, which must be a loopback address such as
// 127.0.0.1:8085; see Start for token.
func Listen(addr, token string) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("googledouble: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("googledouble: address %q is not a loopback IP address: the double serves only this machine", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("googledouble: listening on %s: %w", addr, err)
	}
	s := &Server{
		URL:        "http://" + l.Addr().String() + "/",
		token:      token,
		listener:   l,
		files:      map[string]ImportDataFile{},
		policies:   map[string]Policy{},
		keys:       map[string]serviceAccountKey{},
		users:      map[string]userCredential{},
		userTokens: map[string]bool{},
	}
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.http.Serve(l) }()
	return s, nil
}

// Close stops the double and closes its connections.
func (s *Server) Close() error {
	err := s.http.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// AddImportDataFile stores an import data file. An empty f.Name is set to the file's
// full resource name.
func (s *Server) AddImportDataFile(project, location, importJob, id string, f ImportDataFile) {
	name := ImportDataFileName(project, location, importJob, id)
	if f.Name == "" {
		f.Name = name
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[name] = f
}

// SetPolicy stores the IAM policy of a proxy configuration; the zero Policy makes the
// proxy configuration exist without a policy.
func (s *Server) SetPolicy(organization, partnerTenant, proxyConfig string, p Policy) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.policies[ProxyConfigName(organization, partnerTenant, proxyConfig)] = p
}

// ImportDataFileName is the full resource name of an import data file.
func ImportDataFileName(project, location, importJob, id string) string {
	return "projects/" + project + "/locations/" + location + "/importJobs/" + importJob + "/importDataFiles/" + id
}

// ProxyConfigName is the full resource name of a partner tenant's proxy configuration.
func ProxyConfigName(organization, partnerTenant, proxyConfig string) string {
	return "organizations/" + organization + "/locations/global/partnerTenants/" + partnerTenant + "/proxyConfigs/" + proxyConfig
}

// Requests returns the API requests received so far, oldest first (token requests are
// counted by TokenRequests instead).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1alpha1/projects/{project}/locations/{location}/importJobs/{job}/importDataFiles/{file}",
		s.api(migrationCenterService, s.getImportDataFile))
	mux.HandleFunc("GET /v1/organizations/{org}/locations/global/partnerTenants/{tenant}/proxyConfigs/{config}",
		s.api(beyondcorpService, s.getIamPolicy))
	mux.HandleFunc("POST /token", s.grantToken)
	mux.HandleFunc("/", s.api("", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Method not found: %s %s", r.Method, r.URL.EscapedPath()))
	}))
	return mux
}

// The services' names, as Google's errors name them.
const (
	migrationCenterService = "migrationcenter.googleapis.com"
	beyondcorpService      = "beyondcorp.googleapis.com"
)

// api wraps an API handler of service: it records the request, applies the standing
// delay and the next queued fault, and checks the bearer token and, for the tokens of
// user credentials, that a quota project is named (as Google does; see
// writeQuotaProjectError). service is empty for the answers of unknown methods.
func (s *Server) api(service string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		bearer, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		userProject := r.Header.Get("X-Goog-User-Project")
		s.mu.Lock()
		user := s.userTokens[bearer]
		authorized := s.token == "" || bearer == s.token || user
		s.requests = append(s.requests, Request{
			Method:        r.Method,
			Path:          r.URL.Path,
			EscapedPath:   r.URL.EscapedPath(),
			Query:         r.URL.Query(),
			UserAgent:     r.UserAgent(),
			UserProject:   userProject,
			RequestReason: r.Header.Get("X-Goog-Request-Reason"),
			Authorized:    authorized,
		})
		s.mu.Unlock()

		fault, delay, _ := s.nextFault()
		if !wait(r, delay) || !wait(r, fault.Delay) {
			return
		}
		if fault.apply(w, r) {
			return
		}
		if !authorized {
			writeError(w, http.StatusUnauthorized, "")
			return
		}
		if user && userProject == "" && service != "" {
			writeQuotaProjectError(w, service)
			return
		}
		h(w, r)
	}
}

func (s *Server) getImportDataFile(w http.ResponseWriter, r *http.Request) {
	name := ImportDataFileName(r.PathValue("project"), r.PathValue("location"), r.PathValue("job"), r.PathValue("file"))
	s.mu.Lock()
	f, ok := s.files[name]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Resource '%s' was not found", name))
		return
	}
	writeJSON(w, f)
}

func (s *Server) getIamPolicy(w http.ResponseWriter, r *http.Request) {
	config, ok := strings.CutSuffix(r.PathValue("config"), ":getIamPolicy")
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Method not found: %s %s", r.Method, r.URL.EscapedPath()))
		return
	}
	version := 0
	if v := r.URL.Query().Get("options.requestedPolicyVersion"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Invalid value at 'options.requested_policy_version' (TYPE_INT32), %q", v))
			return
		}
		version = n
	}
	if version != 0 && version != 1 && version != 3 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Invalid requested policy version %d: valid versions are 0, 1 and 3.", version))
		return
	}
	name := ProxyConfigName(r.PathValue("org"), r.PathValue("tenant"), config)
	s.mu.Lock()
	p, ok := s.policies[name]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Resource '%s' was not found", name))
		return
	}
	if p.conditional() && version < 3 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf(
			"The policy of '%s' contains conditional role bindings; request policy version 3 to read it (requested version %d).", name, version))
		return
	}
	if p.Etag == nil {
		p.Etag = emptyPolicyEtag
	}
	writeJSON(w, p)
}

// writeJSON answers 200 with v as JSON, without HTML escaping, as Google answers.
func writeJSON(w http.ResponseWriter, v any) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeError(w, http.StatusInternalServerError, "googledouble: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(body.Bytes())
}

// writeError answers with Google's error envelope; an empty message uses Google's usual one.
func writeError(w http.ResponseWriter, code int, message string) {
	status, usual := statusOf(code)
	if message == "" {
		message = usual
	}
	body, _ := json.Marshal(errorEnvelope{Error: errorBody{Code: code, Message: message, Status: status}})
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// gcloudProject is the project of the OAuth client of gcloud's Application Default
// Credentials: Google names it as the consumer of requests that name no quota project.
const gcloudProject = "projects/764086051850"

// writeQuotaProjectError answers as Google answers a request of user credentials
// (those of gcloud auth application-default login) that names no quota project, for an
// API that needs one: 403 with reason SERVICE_DISABLED.
func writeQuotaProjectError(w http.ResponseWriter, service string) {
	message := "Your application is authenticating by using local Application Default Credentials. The " + service +
		" API requires a quota project, which is not set by default. To learn how to set your quota project, " +
		"see https://cloud.google.com/docs/authentication/adc-troubleshooting/user-creds ."
	status, _ := statusOf(http.StatusForbidden)
	body, _ := json.Marshal(errorEnvelope{Error: errorBody{
		Code: http.StatusForbidden, Message: message, Status: status,
		Details: []any{
			map[string]any{
				"@type":    "type.googleapis.com/google.rpc.ErrorInfo",
				"reason":   "SERVICE_DISABLED",
				"domain":   "googleapis.com",
				"metadata": map[string]string{"service": service, "consumer": gcloudProject},
			},
			map[string]any{
				"@type":   "type.googleapis.com/google.rpc.LocalizedMessage",
				"locale":  "en-US",
				"message": message,
			},
		},
	}})
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(body)
}

// serviceAccountKey is the public half of a key minted by ServiceAccountKey.
type serviceAccountKey struct {
	email string
	key   *rsa.PublicKey
}
