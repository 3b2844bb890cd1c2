package myproject;

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
import com.pulumi.Pulumi;
import java.util.Map;
import java.util.stream.Collectors;

public class App {
    public static void main(String[] args) {
        Pulumi.run(ctx -> {
            // The addresses behind the selectorless Service "web": an EndpointSlice
            // labelled with the Service's name. Its own name is generated (web-<random>).
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
                .ports(EndpointPortArgs.builder().name("http").port(8080).appProtocol("http").build())
                .build());

            // The Endpoints of the selectorless Services web-legacy and db-legacy,
            // managed as one set. Kubernetes mirrors each into an EndpointSlice.
            var legacy = new EndpointsList("legacy", EndpointsListArgs.builder()
                .items(
                    EndpointsArgs.builder()
                        .metadata(ObjectMetaArgs.builder().name("web-legacy").build())
                        .subsets(EndpointSubsetArgs.builder()
                            .addresses(
                                EndpointAddressArgs.builder().ip("10.0.0.10").build(),
                                EndpointAddressArgs.builder().ip("10.0.0.11").build())
                            .ports(com.endpointsprovider.endpoints.core.v1.inputs.EndpointPortArgs.builder()
                                .name("http").port(8080).build())
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

            ctx.export("sliceName", web.metadata().applyValue(m -> m.name().orElse("")));
            ctx.export("endpointsNames", legacy.items().applyValue(items -> items.stream()
                .map(item -> item.metadata().flatMap(m -> m.name()).orElse(""))
                .collect(Collectors.toList())));
        });
    }
}
