package sdkgen

import (
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
)

func genGo(spec schema.PackageSpec) (map[string][]byte, error) {
	pkg, err := bind(spec)
	if err != nil {
		return nil, err
	}
	reserveGetNames(pkg)
	return gogen.GeneratePackage(tool, pkg, nil)
}

func genNodejs(spec schema.PackageSpec) (map[string][]byte, error) {
	pkg, err := bind(spec)
	if err != nil {
		return nil, err
	}
	return nodejs.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
}

func genPython(spec schema.PackageSpec) (map[string][]byte, error) {
	pkg, err := bind(spec)
	if err != nil {
		return nil, err
	}
	return python.GeneratePackage(tool, pkg, nil, noPackages{})
}
