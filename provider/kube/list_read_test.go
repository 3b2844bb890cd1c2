package kube

import "testing"

func TestParseImportID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id, wantNS, wantSelector, wantFields string
		wantLimit                            int64
		wantErr                              bool
	}{
		{id: "apps?labelSelector=app%3Dweb&limit=2", wantNS: "apps", wantSelector: "app=web", wantLimit: 2},
		{id: "apps", wantNS: "apps", wantLimit: defaultImportPageSize},
		{id: "?labelSelector=tier+in+(a,b)", wantNS: "fallback", wantSelector: "tier in (a,b)", wantLimit: defaultImportPageSize},
		// The IDs List gives: one Endpoints object by name.
		{id: "apps?fieldSelector=metadata.name%3Dweb", wantNS: "apps", wantFields: "metadata.name=web",
			wantLimit: defaultImportPageSize},
		{id: "apps?fieldSelector=metadata.name%3Dweb&labelSelector=app%3Dweb", wantNS: "apps", wantSelector: "app=web",
			wantFields: "metadata.name=web", wantLimit: defaultImportPageSize},
		{id: "apps?fieldSelector=spec.x%3D1", wantErr: true},
		{id: "apps?fieldSelector=metadata.name", wantErr: true},
		{id: "apps?labelSelector=a%3D%3D%3Db", wantErr: true},
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
			if err == nil && (ns != tt.wantNS || opts.LabelSelector != tt.wantSelector ||
				opts.FieldSelector != tt.wantFields || opts.Limit != tt.wantLimit) {
				t.Errorf("got %s %q %q %d, want %s %q %q %d", ns, opts.LabelSelector, opts.FieldSelector, opts.Limit,
					tt.wantNS, tt.wantSelector, tt.wantFields, tt.wantLimit)
			}
		})
	}
}
