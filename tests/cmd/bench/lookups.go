package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

const lookupCalls = 300

type lookupFigures struct {
	invoke, direct []time.Duration
}

// measureLookups times getImportDataFile through the plugin's Invoke against the same
// GET sent straight to the double with net/http.
func measureLookups(ctx context.Context, bin string) (lookupFigures, error) {
	var f lookupFigures
	const token = "bench-token"
	double, err := googledouble.Start(token)
	if err != nil {
		return f, err
	}
	defer func() { _ = double.Close() }()
	double.AddImportDataFile("p", "l", "j", "f", googledouble.ImportDataFile{
		Name: googledouble.ImportDataFileName("p", "l", "j", "f"), State: "ACTIVE", Format: "IMPORT_JOB_FORMAT_CMDB",
	})

	p, err := plugin.Launch(bin)
	if err != nil {
		return f, err
	}
	defer func() { _ = p.Close() }()
	args, err := configArgs(map[string]any{
		"accessToken": token, "project": "p",
		"migrationCenterCustomEndpoint": double.URL, "beyondcorpCustomEndpoint": double.URL,
	})
	if err != nil {
		return f, err
	}
	if _, err := p.Configure(ctx, &rpc.ConfigureRequest{Args: args, AcceptSecrets: true}); err != nil {
		return f, err
	}
	invokeArgs, err := configArgs(map[string]any{"location": "l", "importJobId": "j", "importDataFileId": "f"})
	if err != nil {
		return f, err
	}
	url := double.URL + "v1alpha1/" + googledouble.ImportDataFileName("p", "l", "j", "f")
	client := &http.Client{}
	for i := range lookupCalls + 20 { // the first 20 of each warm up
		start := time.Now()
		resp, err := p.Invoke(ctx, &rpc.InvokeRequest{
			Tok: spec.ImportDataFileToken, Args: invokeArgs,
		})
		if err != nil {
			return f, fmt.Errorf("invoke: %w", err)
		}
		if len(resp.GetFailures()) > 0 {
			return f, fmt.Errorf("invoke: %v", resp.GetFailures())
		}
		if i >= 20 {
			f.invoke = append(f.invoke, time.Since(start))
		}

		start = time.Now()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		r, err := client.Do(req)
		if err != nil {
			return f, err
		}
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
		if r.StatusCode != http.StatusOK {
			return f, fmt.Errorf("direct GET: %s", r.Status)
		}
		if i >= 20 {
			f.direct = append(f.direct, time.Since(start))
		}
	}
	return f, nil
}
