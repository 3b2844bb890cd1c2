package controlplane

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// CompactEtcd compacts etcd's history up to its current revision, physically, through
// etcd's HTTP gateway, as the API server's own compaction does every few minutes, and
// records the revision where the API servers look for it (the key compact_rev_key, which
// they watch). Every version older than the current one is then gone: a list's continue
// token (which reads at the version of the list's first page) answers 410 Gone once the
// API server's watch cache, which polls the compacted revision every 15 seconds, drops
// its snapshots of those versions (kube-apiserver 1.34 serves continues from them,
// ListFromCacheSnapshot). It returns the revision compacted.
func (c *ControlPlane) CompactEtcd(ctx context.Context) (int64, error) {
	if c.etcdURL == "" {
		return 0, errors.New("internal error: the control plane has no etcd URL (an HA control plane has three members)")
	}
	var head struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	// A range read of key "\x00" answers the store's current revision in its header.
	if err := etcdPost(ctx, c.etcdURL+"/v3/kv/range", map[string]any{"key": "AA=="}, &head); err != nil {
		return 0, err
	}
	rev, err := strconv.ParseInt(head.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("etcd's revision %q: %w", head.Header.Revision, err)
	}
	if err := etcdPost(ctx, c.etcdURL+"/v3/kv/compaction", map[string]any{"revision": rev, "physical": true}, nil); err != nil {
		return 0, err
	}
	put := map[string]any{
		"key":   base64.StdEncoding.EncodeToString([]byte("compact_rev_key")),
		"value": base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(rev, 10))),
	}
	if err := etcdPost(ctx, c.etcdURL+"/v3/kv/put", put, nil); err != nil {
		return 0, err
	}
	return rev, nil
}

// etcdPost sends body as JSON to an endpoint of etcd's gateway and decodes the answer
// into out (nil: the answer is dropped).
func etcdPost(ctx context.Context, url string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("POST %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", url, resp.Status, bytes.TrimSpace(answer))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("POST %s: %w", url, err)
	}
	return nil
}
