package validate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestObjectMetadata(t *testing.T) {
	t.Parallel()
	label64 := strings.Repeat("l", 64)
	name253 := strings.Repeat(strings.Repeat("n", 62)+".", 4) + "n"
	bigValue := strings.Repeat("v", maxAnnotationsBytes-1)
	tests := []struct {
		name     string
		meta     string
		failures []want // paths relative to the metadata
		warnings []want
	}{
		{name: "empty metadata", meta: `{}`},
		{name: "name", meta: `{"name":"web.example-1"}`},
		{name: "name of 253 characters", meta: `{"name":"` + name253 + `"}`},
		{
			name:     "name of 254 characters",
			meta:     `{"name":"` + name253 + `n"}`,
			failures: []want{{"name", "must be a DNS subdomain (RFC 1123): lowercase alphanumerics, '-' or '.', starting and ending with an alphanumeric, at most 253 characters"}},
		},
		{name: "name uppercase", meta: `{"name":"Web"}`, failures: []want{{"name", `must be a DNS subdomain (RFC 1123)`}}},
		{name: "name ..", meta: `{"name":".."}`, failures: []want{{"name", `(got "..")`}}},
		{
			name:     "name empty",
			meta:     `{"name":""}`,
			failures: []want{{"name", "must not be empty: set a name, or leave it out to have one generated"}},
		},
		{name: "name empty with generateName", meta: `{"name":"","generateName":"web-"}`},
		{name: "generateName", meta: `{"generateName":"web-"}`},
		{name: "generateName masks its last two characters (as the server does)", meta: `{"name":"web","generateName":"x_-"}`},
		{
			name:     "generateName alone must make valid names",
			meta:     `{"generateName":"x_-"}`,
			failures: []want{{"generateName", "must make valid object names"}},
		},
		{name: "generateName alone, cut after a dot", meta: `{"generateName":"` + strings.Repeat("a", 57) + `.b"}`},
		{name: "generateName alone, of 253 characters (the server keeps 58)", meta: `{"generateName":"` + name253 + `"}`},
		{
			name:     "generateName uppercase",
			meta:     `{"name":"web","generateName":"Web-"}`,
			failures: []want{{"generateName", "must be the start of a DNS subdomain"}},
		},
		{name: "generateName '-'", meta: `{"generateName":"-"}`, failures: []want{{"generateName", "must be the start of a DNS subdomain"}}},
		{name: "namespace", meta: `{"namespace":"kube-system"}`},
		{name: "namespace empty", meta: `{"namespace":""}`},
		{name: "namespace not a label", meta: `{"namespace":"a.b"}`, failures: []want{{"namespace", "must be a DNS label"}}},
		{name: "labels", meta: `{"labels":{"app":"web","app.kubernetes.io/name":"x","example.com/Mixed_Case.1":"V_1.x","e":""}}`},
		{
			name:     "label key with a space",
			meta:     `{"labels":{"bad key":"x"}}`,
			failures: []want{{`labels["bad key"]`, "label key must be a qualified name"}},
		},
		{
			name:     "label key empty",
			meta:     `{"labels":{"":"x"}}`,
			failures: []want{{`labels[""]`, "label key must be a qualified name"}},
		},
		{
			name:     "label key name part of 64 characters",
			meta:     `{"labels":{"example.com/` + label64 + `":"x"}}`,
			failures: []want{{`labels["example.com/` + label64 + `"]`, "label key must be a qualified name"}},
		},
		{
			name:     "label key with an uppercase prefix",
			meta:     `{"labels":{"Example.com/x":"x"}}`,
			failures: []want{{`labels["Example.com/x"]`, "label key must be a qualified name"}},
		},
		{
			name:     "label value of 64 characters",
			meta:     `{"labels":{"k":"` + label64 + `"}}`,
			failures: []want{{"labels.k", "label value must be empty or at most 63 alphanumerics"}},
		},
		{
			name:     "label value ending in '-'",
			meta:     `{"labels":{"k":"v-"}}`,
			failures: []want{{"labels.k", `(got "v-")`}},
		},
		{name: "annotation keys ignore case", meta: `{"annotations":{"Example.COM/Some-Key":"{\"any\": \"text\"}"}}`},
		{
			name:     "annotation key with a space",
			meta:     `{"annotations":{"bad key":"x"}}`,
			failures: []want{{`annotations["bad key"]`, "annotation key must be a qualified name"}},
		},
		{name: "annotations of exactly 256 KiB", meta: `{"annotations":{"k":"` + bigValue + `"}}`},
		{
			name:     "annotations beyond 256 KiB",
			meta:     `{"annotations":{"k":"` + bigValue + `","l":""}}`,
			failures: []want{{"annotations", "annotations may total at most 256 KiB (262144 bytes of keys and values; got 262145)"}},
		},
		{
			name:     "annotations beyond 256 KiB with unknown values",
			meta:     `{"annotations":{"k":"` + bigValue + `v","l":"$unknown"}}`,
			failures: []want{{"annotations", "got 262146 or more"}},
		},
		{name: "annotations of unknown size", meta: `{"annotations":{"k":"` + bigValue[1:] + `","l":"$unknown"}}`},
		{name: "finalizers", meta: `{"finalizers":["example.com/cleanup","kubernetes","orphan"]}`},
		{
			name:     "finalizer without a domain",
			meta:     `{"finalizers":["kubernetes","cleanup"]}`,
			failures: []want{{"finalizers[1]", `finalizer "cleanup" has no domain prefix`}},
		},
		{
			name:     "finalizer not a qualified name",
			meta:     `{"finalizers":["example.com/clean up"]}`,
			failures: []want{{"finalizers[0]", "finalizer must be a qualified name"}},
		},
		{
			name:     "finalizers orphan and foregroundDeletion",
			meta:     `{"finalizers":["orphan","foregroundDeletion"]}`,
			failures: []want{{"finalizers", "the finalizers orphan and foregroundDeletion cannot both be set"}},
		},
		{name: "owner reference", meta: `{"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"web","uid":"1","controller":true,"blockOwnerDeletion":true}]}`},
		{name: "owner reference '/v1'", meta: `{"ownerReferences":[{"apiVersion":"/v1","kind":"Service","name":"web","uid":"1"}]}`},
		{
			name: "owner reference fields empty",
			meta: `{"ownerReferences":[{"apiVersion":"","kind":"","name":"","uid":""}]}`,
			failures: []want{
				{"ownerReferences[0].apiVersion", "must be an API version"},
				{"ownerReferences[0].kind", "must not be empty"},
				{"ownerReferences[0].name", "must not be empty"},
				{"ownerReferences[0].uid", "must not be empty"},
			},
		},
		{
			name: "owner reference fields missing",
			meta: `{"ownerReferences":[{}]}`,
			failures: []want{
				{"ownerReferences[0].apiVersion", `required property "apiVersion" of OwnerReference is missing`},
				{"ownerReferences[0].kind", `required property "kind"`},
				{"ownerReferences[0].name", `required property "name"`},
				{"ownerReferences[0].uid", `required property "uid"`},
			},
		},
		{
			name:     "owner reference apiVersion without a version",
			meta:     `{"ownerReferences":[{"apiVersion":"apps/","kind":"Deployment","name":"d","uid":"1"}]}`,
			failures: []want{{"ownerReferences[0].apiVersion", `(e.g. apps/v1 or v1; got "apps/")`}},
		},
		{
			name:     "owner reference apiVersion with two slashes",
			meta:     `{"ownerReferences":[{"apiVersion":"a/b/c","kind":"Deployment","name":"d","uid":"1"}]}`,
			failures: []want{{"ownerReferences[0].apiVersion", "must be an API version"}},
		},
		{
			name:     "owner reference to a v1 Event",
			meta:     `{"ownerReferences":[{"apiVersion":"v1","kind":"Event","name":"e","uid":"1"}]}`,
			failures: []want{{"ownerReferences[0].kind", "v1 Event objects cannot be owners"}},
		},
		{name: "owner reference to an events.k8s.io Event", meta: `{"ownerReferences":[{"apiVersion":"events.k8s.io/v1","kind":"Event","name":"e","uid":"1"}]}`},
		{
			name: "two controllers",
			meta: `{"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"a","uid":"1","controller":true},` +
				`{"apiVersion":"v1","kind":"Service","name":"b","uid":"2","controller":false},` +
				`{"apiVersion":"v1","kind":"Service","name":"c","uid":"3","controller":true}]}`,
			failures: []want{{"ownerReferences[2].controller", "only one owner reference may be the managing controller, and ownerReferences[0] already is"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, form := range []struct {
				prefix string
				run    func() Result
			}{
				{"metadata.", func() Result {
					return EndpointSlice(inputs(t, `{"metadata":`+tt.meta+`,"addressType":"IPv4","endpoints":[]}`), nil, Written{})
				}},
				{"items[0].metadata.", func() Result {
					// Items need a name (their identity); the slice form covers its absence.
					meta := tt.meta
					var fields map[string]any
					if err := json.Unmarshal([]byte(meta), &fields); err == nil && fields["name"] == nil &&
						fields["generateName"] == nil {
						fields["name"] = "item"
						b, err := json.Marshal(fields)
						if err != nil {
							t.Fatal(err)
						}
						meta = string(b)
					}
					return EndpointsList(inputs(t, `{"items":[{"metadata":`+meta+`}]}`), "", nil, Written{})
				}},
			} {
				prefixed := func(ws []want) []want {
					var out []want
					for _, w := range ws {
						out = append(out, want{form.prefix + w.path, w.text})
					}
					return out
				}
				checkResult(t, form.run(), prefixed(tt.failures), prefixed(tt.warnings))
			}
		})
	}
}

// What every write adds to the annotations counts against their limit: inputs that
// reach it only with the added annotations are refused, and the reason says so.
func TestWrittenAnnotationsCount(t *testing.T) {
	t.Parallel()
	written := Written{Annotations: map[string]string{"example.com/urn": "urn:pulumi:dev::p::t::web"}}
	added := len("example.com/urn") + len("urn:pulumi:dev::p::t::web")
	doc := func(size int) string {
		return `{"metadata":{"name":"web","annotations":{"a":"` + strings.Repeat("v", size-1) + `"}},` +
			`"addressType":"IPv4","endpoints":[]}`
	}
	checkResult(t, EndpointSlice(inputs(t, doc(maxAnnotationsBytes-added)), nil, written), nil, nil)
	checkResult(t, EndpointSlice(inputs(t, doc(maxAnnotationsBytes-added+1)), nil, written), []want{{
		"metadata.annotations", fmt.Sprintf("annotations may total at most 256 KiB (262144 bytes of keys and values; "+
			"got %d, plus %d that the provider adds to every object it writes (the resource's URN))",
			maxAnnotationsBytes-added+1, added)}}, nil)
	checkResult(t, EndpointSlice(inputs(t, doc(maxAnnotationsBytes)), nil, Written{}), nil, nil)
}
