// A user's program with the npm package: an EndpointSlice and an EndpointsList, run as
// an Automation API inline program (no Node.js language host needed).
//
//   node bin/index.js <up|destroy>
//
// It uses the stack "dev" of Pulumi.yaml in the current directory and prints one JSON
// line on stdout: {"changes": {<op>: <count>}, "outputs": {...}}.
import * as endpoints from "@endpoints-provider/endpoints";
import { LocalWorkspace, OpMap } from "@pulumi/pulumi/automation";

async function program() {
    const web = new endpoints.discovery.v1.EndpointSlice("web", {
        metadata: { labels: { "kubernetes.io/service-name": "web" } },
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.0.0.10"], conditions: { ready: true } }],
        ports: [{ name: "http", port: 8080 }],
    });
    const legacy = new endpoints.core.v1.EndpointsList("legacy", {
        items: [{
            metadata: { name: "web-legacy" },
            subsets: [{ addresses: [{ ip: "10.0.0.10" }], ports: [{ name: "http", port: 8080 }] }],
        }],
    });
    return {
        sliceName: web.metadata.apply(m => m.name),
        sliceNamespace: web.metadata.apply(m => m.namespace),
        legacyItems: legacy.items.apply(items => items.map(item => item.metadata?.name)),
    };
}

async function main(): Promise<void> {
    const operation = process.argv[2];
    const stack = await LocalWorkspace.selectStack(
        { stackName: "dev", projectName: "packages-nodejs", program },
        { workDir: process.cwd() },
    );
    const onOutput = (out: string) => { process.stderr.write(out); };
    let result: { changes?: OpMap; outputs?: Record<string, unknown> };
    switch (operation) {
        case "up": {
            const r = await stack.up({ onOutput });
            const outputs = Object.fromEntries(Object.entries(r.outputs).map(([k, v]) => [k, v.value]));
            result = { changes: r.summary.resourceChanges, outputs };
            break;
        }
        case "destroy": {
            const r = await stack.destroy({ onOutput });
            result = { changes: r.summary.resourceChanges };
            break;
        }
        default:
            throw new Error(`unknown operation ${JSON.stringify(operation)}: want up or destroy`);
    }
    process.stdout.write(JSON.stringify(result) + "\n");
}

main().catch(err => {
    process.stderr.write(`${err instanceof Error ? err.message : err}\n`);
    process.exit(1);
});
