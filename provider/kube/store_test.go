package kube

import "testing"

// TestInvalidIDsSayTheForm checks that an ID of the wrong form names the kind and
// shows the right form with an example.
func TestInvalidIDsSayTheForm(t *testing.T) {
	t.Parallel()
	sliceForm := "an EndpointSlice ID is <namespace>/<name>, such as default/web-1a2b3c (a bare name means the provider's namespace); " +
		"an EndpointsList's ID is <namespace>?labelSelector=<selector>, such as default?labelSelector=app%3Dweb"
	tests := []struct {
		name, id string
		parse    func(id string) error
		want     string
	}{
		{"slice ID with two slashes", "apps/web/1", sliceID, `invalid EndpointSlice ID "apps/web/1": ` + sliceForm},
		{"slice ID without a name", "apps/", sliceID, `invalid EndpointSlice ID "apps/": ` + sliceForm},
		{"slice ID without a namespace", "/web", sliceID, `invalid EndpointSlice ID "/web": ` + sliceForm},
		{"list ID of a slice's form", "apps/web", listID, `invalid EndpointsList ID "apps/web": an EndpointsList's ID is ` +
			"<namespace>?labelSelector=<selector>, such as default?labelSelector=app%3Dweb (every Endpoints of the namespace " +
			"that the selector matches); <namespace>/<name> is one EndpointSlice's ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.parse(tt.id)
			if err == nil || err.Error() != tt.want {
				t.Errorf("parsing %q: error %v, want %s", tt.id, err, tt.want)
			}
		})
	}
}

func sliceID(id string) error {
	_, err := parseObjectID(endpointSliceKind, id, "fallback")
	return err
}

func listID(id string) error {
	_, _, err := parseImportID(id, "fallback")
	return err
}
