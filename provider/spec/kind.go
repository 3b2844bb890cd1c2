package spec

import "github.com/pulumi/pulumi/sdk/v3/go/property"

// KindOf names the kind of v ("a string", "a list", ...) for messages. It never shows
// the value, so it is safe for secrets.
func KindOf(v property.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case v.IsString():
		return "a string"
	case v.IsNumber():
		return "a number"
	case v.IsBool():
		return "a boolean"
	case v.IsArray():
		return "a list"
	case v.IsMap():
		return "an object"
	case v.IsAsset():
		return "an asset"
	case v.IsArchive():
		return "an archive"
	case v.IsResourceReference():
		return "a resource reference"
	}
	return "an unsupported value"
}
