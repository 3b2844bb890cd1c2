package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/version"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// The cluster's Kubernetes version, which Check follows where the rules differ by minor
// (see validate's minors.go). A client asks its API server (GET /version) the first
// time a Check needs it, and keeps the answer: one request per client and cluster, and
// none for a program whose inputs are the same on every minor. A failure is not kept
// for good: Check applies the newest minor's rules, says so once at warning level, and
// a Check after versionRetry asks again, so an API server that was restarting or
// briefly out of reach does not pin the rules for the rest of the command.

// versionRetry is how long a failure to get the version is kept: the Checks of one
// burst (the engine checks many resources at once) share the failure instead of each
// waiting on an unreachable server, and a later Check asks again.
const versionRetry = 5 * time.Second

// serverVersion is the version of a client's API server, once known. Callers take
// turns (mu): one request is in flight at a time, and those that waited for it share
// its answer, or its failure for versionRetry. Each request runs with its own caller's
// context, so a caller that gives up fails no one else: its failure is not kept. (A
// caller waits its turn for at most one request, which the request timeout bounds.)
type serverVersion struct {
	mu    sync.Mutex
	known bool
	minor int
	git   string // "v1.32.13"
	// err is the last failure, when it came (failed), and whether Check said so.
	err    error
	failed time.Time
	warned bool
	// now is the clock (time.Now where nil), which tests set.
	now func() time.Time
}

func (v *serverVersion) clock() time.Time {
	if v.now != nil {
		return v.now()
	}
	return time.Now()
}

// version returns the API server's minor and version, asking it when not known yet and
// no failure came within versionRetry. The first failure while the version is unknown
// is said at warning level, with the rules Check then applies; the later ones at debug
// level.
func (c *Client) version(ctx context.Context) (int, string, error) {
	v := &c.serverVersion
	v.mu.Lock()
	defer v.mu.Unlock()
	switch {
	case v.known:
		return v.minor, v.git, nil
	case v.err != nil && v.clock().Sub(v.failed) < versionRetry:
		return 0, "", v.err
	}
	minor, git, err := c.askVersion(ctx)
	switch {
	case err == nil:
		v.known, v.minor, v.git, v.err = true, minor, git, nil
	case ctx.Err() != nil:
		// The caller gave up (the engine canceled its Check): not the server's failure.
	default:
		v.err, v.failed = err, v.clock()
		log := secret.Logger(ctx)
		if v.warned {
			log.Debugf("Check applies the rules of Kubernetes 1.%d: %v", validate.NewestMinor, err)
			break
		}
		v.warned = true
		log.Warningf("could not ask the Kubernetes API server %s its version (%v): Check applies the rules of "+
			"Kubernetes 1.%d, the newest supported, and asks again at a later Check; the API server judges each write",
			c.REST.Host, err, validate.NewestMinor)
	}
	return minor, git, err
}

// askVersion asks the API server its minor and version (GET /version).
func (c *Client) askVersion(ctx context.Context) (int, string, error) {
	raw, err := c.raw.Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return 0, "", fmt.Errorf("asking the API server's version: %w", err)
	}
	var info version.Info
	if err := json.Unmarshal(raw, &info); err != nil {
		return 0, "", fmt.Errorf("reading the API server's version: %w", err)
	}
	minor, ok := leadingNumber(info.Minor)
	if !ok {
		return 0, "", fmt.Errorf("reading the API server's version: minor %q is not a number", info.Minor)
	}
	return minor, info.GitVersion, nil
}

// leadingNumber reads the number a version field starts with: managed clusters report
// minors such as "32+".
func leadingNumber(s string) (int, bool) {
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(s[:end])
	return n, err == nil
}

// checkedServer is the validate.Server of one Check on a cluster (see store.rules):
// the cluster in force, asked only when validate needs the minor. Where there is no
// client yet (a preview whose kubeconfig is an output of the same program), it is
// validate.Newest.
type checkedServer struct {
	ctx context.Context
	b   clusterResource
}

// Version implements validate.Server.
func (s checkedServer) Version() (int, string) {
	log := secret.Logger(s.ctx)
	c, err := s.b.client(s.ctx)
	if err != nil {
		log.Debugf("no Kubernetes client, so Check applies the rules of Kubernetes 1.%d: %v", validate.NewestMinor, err)
		return validate.Newest.Version()
	}
	minor, git, err := c.version(s.ctx)
	if err != nil {
		// version said which rules apply and why.
		return validate.Newest.Version()
	}
	if minor < validate.OldestMinor || minor > validate.NewestMinor {
		c.outsideWindow.Do(func() {
			end := min(max(minor, validate.OldestMinor), validate.NewestMinor)
			log.Warningf("the cluster runs Kubernetes %s, outside the minors this provider supports (1.%d to 1.%d): "+
				"Check applies the rules of 1.%d", git, validate.OldestMinor, validate.NewestMinor, end)
		})
	}
	return minor, git
}
