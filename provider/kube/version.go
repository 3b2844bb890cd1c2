package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/version"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// The cluster's Kubernetes version, which Check follows where the rules differ by minor
// (see validate's minors.go). A client asks its API server once (GET /version), the
// first time a Check needs it, and keeps the answer: one request per provider process
// and cluster, and none for a program whose inputs are the same on every minor.

// serverVersion is the version of a client's API server, asked once.
type serverVersion struct {
	once  sync.Once
	minor int
	git   string // "v1.32.13"
	err   error
}

// version returns the API server's minor and version, asking it on first use. A
// failed request is kept too: Check goes on with the default rules (the write will
// say what is wrong), rather than wait on an unreachable server for every resource.
func (c *Client) version(ctx context.Context) (int, string, error) {
	c.serverVersion.once.Do(func() {
		raw, err := c.raw.Get().AbsPath("/version").Do(ctx).Raw()
		if err != nil {
			c.serverVersion.err = fmt.Errorf("asking the API server's version: %w", err)
			return
		}
		var info version.Info
		if err := json.Unmarshal(raw, &info); err != nil {
			c.serverVersion.err = fmt.Errorf("reading the API server's version: %w", err)
			return
		}
		minor, ok := leadingNumber(info.Minor)
		if !ok {
			c.serverVersion.err = fmt.Errorf("reading the API server's version: minor %q is not a number", info.Minor)
			return
		}
		c.serverVersion.minor, c.serverVersion.git = minor, info.GitVersion
	})
	return c.serverVersion.minor, c.serverVersion.git, c.serverVersion.err
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
		log.Debugf("Check applies the rules of Kubernetes 1.%d: %v", validate.NewestMinor, err)
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
