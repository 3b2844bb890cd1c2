package google

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/api/googleapi"
)

// Both lookups make their GET through getJSON: these are its rules.
func TestGetJSON(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = io.WriteString(w, `{"etag":"e1"}`)
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/huge":
			_, _ = io.WriteString(w, `{"etag":"`+strings.Repeat("x", maxAnswerBytes)+`"}`)
		case "/not-modified":
			w.WriteHeader(http.StatusNotModified)
		default:
			http.Error(w, `{"error":{"code":404,"message":"no such thing"}}`, http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	get := func(ctx context.Context, path string, out any) (googleapi.ServerResponse, error) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return getJSON(srv.Client(), req, out)
	}

	var policy iamPolicy
	answer, err := get(t.Context(), "/ok", &policy)
	if err != nil || policy.Etag != "e1" || answer.HTTPStatusCode != http.StatusOK {
		t.Errorf("/ok: policy %+v, status %d, err %v; want etag e1, 200", policy, answer.HTTPStatusCode, err)
	}

	policy = iamPolicy{Etag: "kept"}
	answer, err = get(t.Context(), "/empty", &policy)
	if err != nil || policy.Etag != "kept" || answer.HTTPStatusCode != http.StatusNoContent {
		t.Errorf("/empty: policy %+v, status %d, err %v; want it untouched, 204", policy, answer.HTTPStatusCode, err)
	}

	var syntax *json.SyntaxError
	if _, err := get(t.Context(), "/huge", &policy); !errors.As(err, &syntax) {
		t.Errorf("/huge: err = %v, want the decoding to stop at %d bytes", err, maxAnswerBytes)
	}

	for path, code := range map[string]int{"/not-modified": http.StatusNotModified, "/missing": http.StatusNotFound} {
		var gerr *googleapi.Error
		if _, err := get(t.Context(), path, &policy); !errors.As(err, &gerr) || gerr.Code != code {
			t.Errorf("%s: err = %v, want a googleapi.Error %d", path, err, code)
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	// The context's own error, not the transport's wrapping of it.
	if _, err := get(ctx, "/ok", &policy); err != context.Canceled { //nolint:errorlint // identity is the point
		t.Errorf("canceled: err = %v, want the context's error itself", err)
	}
}
