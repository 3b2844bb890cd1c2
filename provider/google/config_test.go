package google

import (
	"testing"
	"time"
)

func TestEndpoint(t *testing.T) {
	t.Parallel()
	const public = "https://migrationcenter.googleapis.com/"
	tests := []struct {
		configured, want, wantErr string
	}{
		{"", public, ""},
		{"https://migrationcenter.googleapis.com/", public, ""},
		{"https://migrationcenter.googleapis.com", public, ""},
		{"http://127.0.0.1:8085", "http://127.0.0.1:8085/", ""},
		{"https://private.example.com/prefix", "https://private.example.com/prefix/", ""},
		{"ftp://example.com/", "", `the provider's key setting "ftp://example.com/" must be an http:// or https:// URL, such as ` + public},
		{"migrationcenter.googleapis.com", "", `the provider's key setting "migrationcenter.googleapis.com" must be an http:// or https:// URL, such as ` + public},
		{"http:///path", "", `the provider's key setting "http:///path" names no host`},
		{"https://user:pw@example.com/", "", `the provider's key setting "https://user:xxxxx@example.com/" must not contain credentials: use accessToken or credentials`},
		{"https://example.com/?x=1", "", `the provider's key setting "https://example.com/?x=1" must be a base URL without query or fragment`},
	}
	for _, tt := range tests {
		got, err := endpoint(tt.configured, public, "key")
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("endpoint(%q) = %q, %v; want %q", tt.configured, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("endpoint(%q) error = %v\nwant %s", tt.configured, err, tt.wantErr)
		}
	}
}

func TestConfigTimeout(t *testing.T) {
	t.Parallel()
	if got := (Config{}).timeout(); got != DefaultTimeout() || got != 60*time.Second {
		t.Errorf("zero Config timeout = %s, want DefaultTimeout, schema.json's default of lookupTimeout, %s "+
			"(60s, as the setting's description says)", got, DefaultTimeout())
	}
	if got := (Config{Timeout: time.Second}).timeout(); got != time.Second {
		t.Errorf("Config{Timeout: 1s}.timeout() = %s", got)
	}
}
