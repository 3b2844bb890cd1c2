// Must fail tsc --strict: proves the compiler sees the SDK's types. The test
// expects an error on each marked line.
import * as endpoints from "@endpoints-provider/endpoints";

new endpoints.core.v1.EndpointsList("bad", { items: [], metadata: { continue_: "token" } }); // error: TypeScript says continue
endpoints.migration.v1alpha1.getImportDataFile({ location: "us-central1" }); // error: importJobId and importDataFileId are required
new endpoints.discovery.v1.EndpointSlice("bad", { addressType: "IPv5", endpoints: [] }); // error: not an address type
