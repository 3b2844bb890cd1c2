package sdkgen

import (
	"context"
	"fmt"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noPackages is the schema loader of the generator: the endpoints schema refers to
// no other package, so any request to load one is an error, and generation never
// starts a plugin or touches the network.
type noPackages struct{}

var _ schema.ReferenceLoader = noPackages{}

func (noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q; the generator loads no other package", pkg)
}

func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, d.Version)
}

func (l noPackages) LoadPackageReference(pkg string, v *semver.Version) (schema.PackageReference, error) {
	_, err := l.LoadPackage(pkg, v)
	return nil, err
}

func (l noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, d.Version)
}
