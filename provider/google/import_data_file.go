package google

import (
	"context"
	"fmt"
	"net/http"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"google.golang.org/api/googleapi"
	migrationcenter "google.golang.org/api/migrationcenter/v1alpha1"
)

// importDataFileArgs are the arguments of getImportDataFile, as schema.json declares them.
var importDataFileArgs = []argSpec{
	{name: "importDataFileId", kind: stringArg, required: true, id: true},
	{name: "importJobId", kind: stringArg, required: true, id: true},
	{name: "location", kind: stringArg, required: true, id: true},
	{name: "project", kind: stringArg, id: true},
}

// getImportDataFile serves endpoints:migration/v1alpha1:getImportDataFile.
func (l *lookups) getImportDataFile(ctx context.Context, in property.Map) (p.InvokeResponse, error) {
	return invoke(ctx, l, "getImportDataFile", importDataFileArgs, in, planImportDataFile, importDataFileOutputs)
}

func planImportDataFile(a args, cfg Config) (
	subject, func(context.Context, *clients) (*migrationcenter.ImportDataFile, error), []p.CheckFailure,
) {
	project, failure := projectOf("getImportDataFile", a, cfg.Project)
	if failure != nil {
		return subject{}, nil, []p.CheckFailure{*failure}
	}
	// getImportDataFile escapes each segment (RFC 6570 reserved expansion of {+name});
	// the IDs are checked to be single segments, so name has exactly these.
	name := "projects/" + project + "/locations/" + a.strings["location"] +
		"/importJobs/" + a.strings["importJobId"] + "/importDataFiles/" + a.strings["importDataFileId"]
	subj := subject{kind: "import data file", path: name, action: "reading import data file " + name}
	call := func(ctx context.Context, c *clients) (*migrationcenter.ImportDataFile, error) {
		return getImportDataFile(ctx, c, name)
	}
	return subj, call, nil
}

// getImportDataFile makes the single GET of the Migration Center v1alpha1 method
// projects.locations.importJobs.importDataFiles.get as the generated client makes it
// (the same URL, query, expansion, status handling and decoding into the generated
// type, see getJSON), without linking that client's thousands of other types and
// methods. name is the resource name, unescaped.
func getImportDataFile(ctx context.Context, c *clients, name string) (*migrationcenter.ImportDataFile, error) {
	u := googleapi.ResolveRelative(c.migrationBase, "v1alpha1/{+name}") + "?alt=json&prettyPrint=false"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("internal error: building the request: %w", err)
	}
	googleapi.Expand(req.URL, map[string]string{"name": name})
	req.Header.Set("User-Agent", googleapi.UserAgent)
	f := &migrationcenter.ImportDataFile{}
	answer, err := getJSON(c.migrationHTTP, req, &f)
	if err != nil {
		return nil, err
	}
	if f != nil { // a null answer decodes to nil, as in the generated client
		f.ServerResponse = answer
	}
	return f, nil
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
