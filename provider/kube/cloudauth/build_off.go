//go:build endpoints_no_cloud_credentials

package cloudauth

import (
	"context"
	"fmt"
)

// build, in a plugin built with the endpoints_no_cloud_credentials tag, makes GKE's
// sources only: that build links none of the AWS and Azure libraries (the Google ones
// serve the lookups too), so that `make bench` can say what they cost the plugin's
// start-up and footprint. Releases are built without the tag.
func build(ctx context.Context, p Plugin, o Options) (Source, error) {
	if p.Cloud == GKE {
		return newGKE(ctx, p, o)
	}
	return nil, fmt.Errorf("%s: this build of the provider (endpoints_no_cloud_credentials) makes no %s token in process",
		p.Where(o.Server), p.Cloud)
}
