package kube

import "testing"

func TestParseImportID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id, wantNS, wantSelector string
		wantLimit                int64
		wantErr                  bool
	}{
		{id: "apps?labelSelector=app%3Dweb&limit=2", wantNS: "apps", wantSelector: "app=web", wantLimit: 2},
		{id: "apps", wantNS: "apps", wantLimit: defaultImportPageSize},
		{id: "?labelSelector=tier+in+(a,b)", wantNS: "fallback", wantSelector: "tier in (a,b)", wantLimit: defaultImportPageSize},
		{id: "apps?limit=0", wantErr: true},
		{id: "apps?selector=x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			ns, opts, err := parseImportID(tt.id, "fallback")
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (ns != tt.wantNS || opts.LabelSelector != tt.wantSelector || opts.Limit != tt.wantLimit) {
				t.Errorf("got %s %q %d, want %s %q %d", ns, opts.LabelSelector, opts.Limit, tt.wantNS, tt.wantSelector, tt.wantLimit)
			}
		})
	}
}
