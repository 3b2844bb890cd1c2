package google

import (
	"context"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	migrationcenter "google.golang.org/api/migrationcenter/v1alpha1"
)

// importDataFileArgs are the arguments of getImportDataFile, as schema.json declares them.
var importDataFileArgs = []argSpec{
	{name: "importDataFileId", kind: stringArg, required: true, id: true},
	{name: "importJobId", kind: stringArg, required: true, id: true},
	{name: "location", kind: stringArg, required: true, id: true},
	{name: "project", kind: stringArg, id: true},
}

// getImportDataFile serves endpoints:migration/v1alpha1:getImportDataFile with the
// generated Migration Center v1alpha1 client.
func (l *lookups) getImportDataFile(ctx context.Context, in property.Map) (p.InvokeResponse, error) {
	return invoke(ctx, l, "getImportDataFile", importDataFileArgs, in, planImportDataFile, importDataFileOutputs)
}

func planImportDataFile(a args, cfg Config) (
	target, func(context.Context, *clients) (*migrationcenter.ImportDataFile, error), []p.CheckFailure,
) {
	project, failure := projectOf("getImportDataFile", a, cfg.Project)
	if failure != nil {
		return target{}, nil, []p.CheckFailure{*failure}
	}
	// The generated client escapes each segment itself (RFC 6570 reserved expansion of
	// {+name}); the IDs are checked to be single segments, so name has exactly these.
	name := "projects/" + project + "/locations/" + a.strings["location"] +
		"/importJobs/" + a.strings["importJobId"] + "/importDataFiles/" + a.strings["importDataFileId"]
	t := target{kind: "import data file", path: name, action: "reading import data file " + name}
	call := func(ctx context.Context, c *clients) (*migrationcenter.ImportDataFile, error) {
		return c.migration.Projects.Locations.ImportJobs.ImportDataFiles.Get(name).Context(ctx).Do()
	}
	return t, call, nil
}

// importDataFileOutputs shapes an import data file into the function's outputs: every
// property the schema promises is present, empty when the API left it out.
func importDataFileOutputs(f *migrationcenter.ImportDataFile) property.Map {
	if f == nil {
		f = &migrationcenter.ImportDataFile{}
	}
	info := f.UploadFileInfo
	if info == nil {
		info = &migrationcenter.UploadFileInfo{}
	}
	headers := make(map[string]property.Value, len(info.Headers))
	for k, v := range info.Headers {
		headers[k] = property.New(v)
	}
	return property.NewMap(map[string]property.Value{
		"createTime":  property.New(f.CreateTime),
		"displayName": property.New(f.DisplayName),
		"format":      property.New(f.Format),
		"name":        property.New(f.Name),
		"state":       property.New(f.State),
		"uploadFileInfo": property.New(property.NewMap(map[string]property.Value{
			"headers":           property.New(property.NewMap(headers)),
			"signedUri":         property.New(info.SignedUri),
			"uriExpirationTime": property.New(info.UriExpirationTime),
		})),
	})
}
