package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// etcdStatus is what an etcd member's gRPC gateway answers to
// POST /v3/maintenance/status (IDs as decimal strings).
type etcdStatus struct {
	Header struct {
		MemberID string `json:"member_id"`
	} `json:"header"`
	Leader string `json:"leader"`
}

// EtcdLeader returns the etcd member that leads the cluster now, as the running
// members report it (their gRPC gateway's maintenance status).
func (h *HA) EtcdLeader(ctx context.Context) (Component, error) {
	var errs []error
	for i, url := range h.etcdClientURLs {
		st, err := memberStatus(ctx, url)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if st.Leader != "" && st.Leader != "0" && st.Leader == st.Header.MemberID {
			return EtcdMember(i), nil
		}
	}
	return "", fmt.Errorf("no etcd member says it leads the cluster: %w", errors.Join(errs...))
}

func memberStatus(ctx context.Context, clientURL string) (etcdStatus, error) {
	var st etcdStatus
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, clientURL+"/v3/maintenance/status",
		strings.NewReader("{}"))
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return st, err
	}
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("POST %s/v3/maintenance/status: status %d: %s", clientURL, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return st, fmt.Errorf("POST %s/v3/maintenance/status: %w: %s", clientURL, err, body)
	}
	return st, nil
}

// BusiestAPIServer returns the API server that holds the most of the connections
// the load balancer relays now: the one whose death breaks the most clients'
// connections.
func (h *HA) BusiestAPIServer() Component {
	busiest, most := 0, -1
	for i, addr := range h.apiServerAddrs {
		if n := h.lb.Open(addr); n > most {
			busiest, most = i, n
		}
	}
	return APIServerN(busiest)
}

// Connections returns how many connections the load balancer relays now to each API
// server. The difference between two calls tells where the clients that connected in
// between went: client-go keeps one connection per client, so a new one is the
// provider's.
func (h *HA) Connections() map[Component]int {
	out := map[Component]int{}
	for i, addr := range h.apiServerAddrs {
		out[APIServerN(i)] = h.lb.Open(addr)
	}
	return out
}

// Restart starts a killed etcd member or API server again with the arguments it
// had (the same ports, data directory, certificate and keys) and returns once it
// serves: a member once it is healthy, an API server once the load balancer
// counts it healthy; then, either way, once the API answers through the load
// balancer.
func (h *HA) Restart(ctx context.Context, comp Component) error {
	h.procsMu.Lock()
	defer h.procsMu.Unlock()
	p, err := h.restart(comp, nil)
	if err != nil {
		return err
	}
	for i := range h.etcdClientURLs {
		if comp == EtcdMember(i) {
			err = waitEtcdHealthy(ctx, p, h.etcdClientURLs[i])
		}
	}
	for i := range h.apiServerAddrs {
		if comp == APIServerN(i) {
			err = h.waitBehindLB(ctx, i)
		}
	}
	if err != nil {
		return err
	}
	return h.waitAPIReady(ctx, p)
}
