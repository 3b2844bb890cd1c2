package endpoints.example;

import com.endpointsprovider.endpoints.core.v1.EndpointsList;
import com.endpointsprovider.endpoints.core.v1.EndpointsListArgs;
import com.endpointsprovider.endpoints.core.v1.inputs.EndpointAddressArgs;
import com.endpointsprovider.endpoints.core.v1.inputs.EndpointSubsetArgs;
import com.endpointsprovider.endpoints.core.v1.inputs.EndpointsArgs;
import com.endpointsprovider.endpoints.discovery.v1.EndpointSlice;
import com.endpointsprovider.endpoints.discovery.v1.EndpointSliceArgs;
import com.endpointsprovider.endpoints.discovery.v1.enums.AddressType;
import com.endpointsprovider.endpoints.discovery.v1.inputs.EndpointArgs;
import com.endpointsprovider.endpoints.discovery.v1.inputs.EndpointConditionsArgs;
import com.endpointsprovider.endpoints.discovery.v1.inputs.EndpointPortArgs;
import com.endpointsprovider.endpoints.meta.v1.inputs.ObjectMetaArgs;
import com.endpointsprovider.endpoints.migration.v1alpha1.Migration_v1alpha1Functions;
import com.endpointsprovider.endpoints.migration.v1alpha1.inputs.GetImportDataFileArgs;
import com.pulumi.Context;
import com.pulumi.Pulumi;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An EndpointSlice, an EndpointsList and a Migration Center lookup, as the other
 * examples declare them. The port comes from the stack configuration
 * ({@code pulumi config set port 8081}), 8080 by default.
 */
public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    public static void stack(Context ctx) {
        int port = ctx.config().getInteger("port").orElse(8080);

        // One EndpointSlice for a Service named "web"; it is autonamed (web-<hex>).
        var web = new EndpointSlice("web", EndpointSliceArgs.builder()
            .metadata(ObjectMetaArgs.builder()
                .labels(Map.of("kubernetes.io/service-name", "web"))
                .build())
            .addressType(AddressType.IPV4)
            .endpoints(
                EndpointArgs.builder()
                    .addresses("10.0.0.10")
                    .conditions(EndpointConditionsArgs.builder().ready(true).build())
                    .zone("zone-a")
                    .build(),
                EndpointArgs.builder()
                    .addresses("10.0.0.11")
                    .conditions(EndpointConditionsArgs.builder().ready(true).build())
                    .zone("zone-b")
                    .build())
            .ports(EndpointPortArgs.builder().name("http").port(port).appProtocol("http").build())
            .build());

        // The Endpoints of the selectorless Services web-legacy and db-legacy, which
        // must exist in the same namespace before `pulumi up`.
        var legacy = new EndpointsList("legacy", EndpointsListArgs.builder()
            .items(
                EndpointsArgs.builder()
                    .metadata(ObjectMetaArgs.builder().name("web-legacy").build())
                    .subsets(EndpointSubsetArgs.builder()
                        .addresses(
                            EndpointAddressArgs.builder().ip("10.0.0.10").build(),
                            EndpointAddressArgs.builder().ip("10.0.0.11").build())
                        .ports(com.endpointsprovider.endpoints.core.v1.inputs.EndpointPortArgs.builder()
                            .name("http").port(port).build())
                        .build())
                    .build(),
                EndpointsArgs.builder()
                    .metadata(ObjectMetaArgs.builder().name("db-legacy").build())
                    .subsets(EndpointSubsetArgs.builder()
                        .addresses(EndpointAddressArgs.builder().ip("10.0.1.5").build())
                        .notReadyAddresses(EndpointAddressArgs.builder().ip("10.0.1.6").build())
                        .ports(com.endpointsprovider.endpoints.core.v1.inputs.EndpointPortArgs.builder()
                            .port(5432).build())
                        .build())
                    .build())
            .build());

        // A Migration Center import data file; the project is the provider's.
        var dataFile = Migration_v1alpha1Functions.getImportDataFile(GetImportDataFileArgs.builder()
            .location("us-central1")
            .importJobId("job-1")
            .importDataFileId("file-1")
            .build());

        ctx.export("sliceName", web.metadata().applyValue(m -> m.name().orElse("")));
        ctx.export("sliceNamespace", web.metadata().applyValue(m -> m.namespace().orElse("")));
        ctx.export("legacyItems", legacy.items().applyValue(items -> items.stream()
            .map(item -> item.metadata().flatMap(m -> m.name()).orElse(""))
            .collect(Collectors.toList())));
        ctx.export("dataFileState", dataFile.applyValue(f -> f.state()));
    }
}
