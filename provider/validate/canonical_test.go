package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCanonicalSame: values the API server stores as the same object are the same in
// the kind's canonical form; real changes are not.
func TestCanonicalSame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		form   Form
		field  string
		a, b   string // JSON documents holding the field as "v"; absent when "{}"
		same   bool
		reason string
	}{
		{"absent ports and null", EndpointSliceForm, "ports", `{}`, `{"v":null}`, true, "the server answers ports: null"},
		{"absent ports and empty", EndpointSliceForm, "ports", `{}`, `{"v":[]}`, true, ""},
		{"absent endpoints and null", EndpointSliceForm, "endpoints", `{}`, `{"v":null}`, true, ""},
		{"endpoint without conditions", EndpointSliceForm, "endpoints",
			`{"v":[{"addresses":["10.0.0.1"]}]}`, `{"v":[{"addresses":["10.0.0.1"],"conditions":{}}]}`, true,
			"the server answers conditions: {}"},
		{"condition set", EndpointSliceForm, "endpoints",
			`{"v":[{"addresses":["10.0.0.1"]}]}`, `{"v":[{"addresses":["10.0.0.1"],"conditions":{"ready":false}}]}`, false, ""},
		{"deprecatedTopology ignored", EndpointSliceForm, "endpoints",
			`{"v":[{"addresses":["10.0.0.1"],"deprecatedTopology":{"a":"b"}}]}`, `{"v":[{"addresses":["10.0.0.1"]}]}`, true, ""},
		{"empty node hints", EndpointSliceForm, "endpoints",
			`{"v":[{"addresses":["10.0.0.1"],"hints":{"forZones":[{"name":"a"}]}}]}`,
			`{"v":[{"addresses":["10.0.0.1"],"hints":{"forZones":[{"name":"a"}],"forNodes":[]}}]}`, true, ""},
		{"node hint changed", EndpointSliceForm, "endpoints",
			`{"v":[{"addresses":["10.0.0.1"],"hints":{"forNodes":[{"name":"node-a"}]}}]}`,
			`{"v":[{"addresses":["10.0.0.1"],"hints":{"forNodes":[{"name":"node-b"}]}}]}`, false, ""},
		{"slice port defaults", EndpointSliceForm, "ports",
			`{"v":[{"port":80}]}`, `{"v":[{"port":80,"name":"","protocol":"TCP"}]}`, true, "SetDefaults_EndpointPort"},
		{"slice port protocol changed", EndpointSliceForm, "ports",
			`{"v":[{"port":80}]}`, `{"v":[{"port":80,"protocol":"UDP"}]}`, false, ""},
		{"slice empty port", EndpointSliceForm, "ports", `{"v":[{}]}`, `{"v":[{"name":"","protocol":"TCP"}]}`, true, ""},
		{"slice empty port is a port", EndpointSliceForm, "ports", `{"v":[{}]}`, `{}`, false, ""},
		{"slice endpoint order matters", EndpointSliceForm, "endpoints",
			`{"v":[{"addresses":["10.0.0.1"]},{"addresses":["10.0.0.2"]}]}`,
			`{"v":[{"addresses":["10.0.0.2"]},{"addresses":["10.0.0.1"]}]}`, false, "atomic lists, kept in order"},
		{"slice port number changed", EndpointSliceForm, "ports", `{"v":[{"port":80}]}`, `{"v":[{"port":81}]}`, false, ""},
		{"unknown is never the same", EndpointSliceForm, "ports", `{"v":"$unknown"}`, `{"v":"$unknown"}`, false, ""},
		{"secret compares by value", EndpointSliceForm, "addressType", `{"v":{"$secret":"IPv4"}}`, `{"v":"IPv4"}`, true, ""},
		{"subsets absent and empty", EndpointsForm, "subsets", `{}`, `{"v":[]}`, true, ""},
		{"endpoints port defaults", EndpointsForm, "subsets",
			`{"v":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`,
			`{"v":[{"addresses":[{"ip":"10.0.0.1","hostname":""}],"ports":[{"port":80,"protocol":"TCP","name":""}]}]}`, true,
			"SetDefaults_Endpoints; omitempty"},
		{"subset order and packing", EndpointsForm, "subsets",
			`{"v":[{"addresses":[{"ip":"10.0.0.2"},{"ip":"10.0.0.1"}],"ports":[{"port":80},{"port":81,"name":"b"}]}]}`,
			`{"v":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":81,"name":"b"},{"port":80}]},` +
				`{"addresses":[{"ip":"10.0.0.2"}],"ports":[{"name":"b","port":81}]},{"addresses":[{"ip":"10.0.0.2"}],"ports":[{"port":80}]}]}`,
			true, "the same (address, port) facts"},
		{"address moved to not ready", EndpointsForm, "subsets",
			`{"v":[{"addresses":[{"ip":"10.0.0.1"}]}]}`, `{"v":[{"notReadyAddresses":[{"ip":"10.0.0.1"}]}]}`, false, ""},
		{"ready wins", EndpointsForm, "subsets",
			`{"v":[{"addresses":[{"ip":"10.0.0.1"}],"notReadyAddresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`,
			`{"v":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`, true, ""},
		{"address without port", EndpointsForm, "subsets",
			`{"v":[{"addresses":[{"ip":"10.0.0.1"}]}]}`, `{"v":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`, false, ""},
		{"items are a set", EndpointsListForm, "items",
			`{"v":[{"metadata":{"name":"a","namespace":"n"}},{"metadata":{"name":"b","namespace":"n"}}]}`,
			`{"v":[{"metadata":{"name":"b","namespace":"n","uid":"x"}},{"metadata":{"name":"a","namespace":"n","labels":{}}}]}`,
			true, "identified by namespace/name; server fields and empty maps"},
		{"item subsets compared canonically", EndpointsListForm, "items",
			`{"v":[{"metadata":{"name":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80},{"port":81,"name":"x"}]}]}]}`,
			`{"v":[{"metadata":{"name":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"name":"x","port":81,"protocol":"TCP"},{"port":80}]}]}]}`,
			true, ""},
		{"label values matter even when empty", ObjectMetaForm, "labels", `{"v":{"a":""}}`, `{}`, false, ""},
		{"empty labels", ObjectMetaForm, "labels", `{"v":{}}`, `{}`, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := Decode(inputs(t, tt.a).Get("v")), Decode(inputs(t, tt.b).Get("v"))
			if got := tt.form.Same(tt.field, a, b); got != tt.same {
				t.Errorf("Same(%s) = %v, want %v (%s)", tt.field, got, tt.same, tt.reason)
			}
			if got := tt.form.Same(tt.field, b, a); got != tt.same {
				t.Errorf("Same(%s) reversed = %v, want %v", tt.field, got, tt.same)
			}
		})
	}
}

// TestStrippedKeepsOrder: the form shown for a live value leaves server defaults out
// and keeps the order the server has.
func TestStrippedKeepsOrder(t *testing.T) {
	t.Parallel()
	live := Decode(inputs(t, `{"v":[{"addresses":[{"ip":"10.0.0.2"},{"ip":"10.0.0.1"}],"ports":[{"port":80,"protocol":"TCP"}]}]}`).Get("v"))
	want := Decode(inputs(t, `{"v":[{"addresses":[{"ip":"10.0.0.2"},{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`).Get("v"))
	got, ok := EndpointsForm.Stripped("subsets", live)
	if !ok {
		t.Fatal("Stripped: nothing left")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stripped (-want +got):\n%s", diff)
	}
	if _, ok := EndpointSliceForm.Stripped("endpoints", Decode(inputs(t, `{"v":null}`).Get("v"))); ok {
		t.Error("Stripped(endpoints: null) left a value")
	}
}

// TestCanonicalObject: an object named by generateName is identified by its prefix.
func TestCanonicalObject(t *testing.T) {
	t.Parallel()
	stored := inputs(t, `{"metadata":{"generateName":"web-","name":"web-x1z9k","namespace":"n","uid":"u",`+
		`"resourceVersion":"1","creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[{"manager":"m"}]},`+
		`"addressType":"IPv4","endpoints":null,"ports":null}`)
	checked := inputs(t, `{"metadata":{"generateName":"web-","namespace":"n"},"addressType":"IPv4"}`)
	if diff := cmp.Diff(EndpointSliceForm.Object(DecodeMap(checked)), EndpointSliceForm.Object(DecodeMap(stored))); diff != "" {
		t.Errorf("canonical forms differ (-checked +stored):\n%s", diff)
	}
}
