package sdkgen

import (
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// reserveGetNames makes the Go generator name every get function Lookup...: it adds
// to pkg, for each function whose member name starts with "get", an overlay object
// type named like the function with a capital G. The Go generator reserves an
// overlay's identifiers without emitting code for it, sees that the function's
// name is taken, and renames the function and its types Lookup... (see the package
// documentation). Only the Go generator may see pkg afterwards.
func reserveGetNames(pkg *schema.Package) {
	for _, f := range pkg.Functions {
		if f.IsMethod || f.IsOverlay {
			continue
		}
		mod, member, ok := splitToken(f.Token)
		if !ok || !strings.HasPrefix(member, "get") || len(member) == len("get") {
			continue
		}
		reserved := &schema.ObjectType{
			PackageReference: pkg.Reference(),
			Token:            pkg.Name + ":" + mod + ":G" + member[1:],
			Comment:          "Reserves the Go name of " + f.Token + " so that the function is named Lookup" + member[3:] + ".",
			IsOverlay:        true,
		}
		// Bound object types come in pairs of plain and input shapes; the Go
		// generator walks both.
		reserved.InputShape = &schema.ObjectType{
			PackageReference: reserved.PackageReference,
			Token:            reserved.Token,
			Comment:          reserved.Comment,
			IsOverlay:        true,
			PlainShape:       reserved,
		}
		pkg.Types = append(pkg.Types, reserved)
	}
}

// splitToken splits pkg:module:member into its module and member.
func splitToken(token string) (module, member string, ok bool) {
	parts := strings.Split(token, ":")
	if len(parts) != 3 {
		return "", "", false
	}
	return parts[1], parts[2], true
}
