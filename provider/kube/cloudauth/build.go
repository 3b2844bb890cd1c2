//go:build !endpoints_no_cloud_credentials

package cloudauth

import "context"

// build finds the credentials of p.
func build(ctx context.Context, p Plugin, o Options) (Source, error) {
	switch p.Cloud {
	case GKE:
		return newGKE(ctx, p, o)
	case EKS:
		return newEKS(ctx, p, o)
	default:
		return newAKS(p, o)
	}
}
