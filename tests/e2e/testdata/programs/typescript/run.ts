// Runs program() as an Automation API inline program: the Node.js SDK itself serves
// the program to the pulumi CLI, so no Node.js language host is needed.
//
//   node bin/run.js <preview|up|refresh|destroy> [stack]
//
// It uses Pulumi.yaml and Pulumi.<stack>.yaml of the current directory (the stack,
// default "dev", is created if missing), shows the engine's progress on stderr and
// prints one JSON line on stdout:
// {"changes": {<op>: <count>}, "outputs": {...}, "warnings": [...]}, where warnings
// are the messages of the engine's warning diagnostics (the provider's among them;
// the progress on stderr, shown as a diff, does not list them).
import { EngineEvent, LocalWorkspace, OpMap, OutputMap } from "@pulumi/pulumi/automation";
import { program } from "./program";

interface Result {
    changes?: OpMap;
    outputs?: Record<string, unknown>;
    warnings?: string[];
}

async function main(): Promise<void> {
    const [operation, stackName = "dev"] = process.argv.slice(2);
    const stack = await LocalWorkspace.createOrSelectStack(
        { stackName, projectName: "endpoints-typescript", program },
        { workDir: process.cwd() },
    );
    const onOutput = (out: string) => { process.stderr.write(out); };
    const warnings: string[] = [];
    const onEvent = (event: EngineEvent) => {
        const d = event.diagnosticEvent;
        if (d?.severity === "warning") {
            warnings.push(d.message.trim());
        }
    };
    let result: Result;
    switch (operation) {
        case "preview": {
            const r = await stack.preview({ onOutput, onEvent, diff: true });
            result = { changes: r.changeSummary };
            break;
        }
        case "up": {
            const r = await stack.up({ onOutput, onEvent, diff: true });
            result = { changes: r.summary.resourceChanges, outputs: values(r.outputs) };
            break;
        }
        case "refresh": {
            const r = await stack.refresh({ onOutput, onEvent });
            result = { changes: r.summary.resourceChanges };
            break;
        }
        case "destroy": {
            const r = await stack.destroy({ onOutput, onEvent });
            result = { changes: r.summary.resourceChanges };
            break;
        }
        default:
            throw new Error(`unknown operation ${JSON.stringify(operation)}: want preview, up, refresh or destroy`);
    }
    result.warnings = warnings;
    process.stdout.write(JSON.stringify(result) + "\n");
}

// values drops the secret flags of the stack outputs.
function values(outputs: OutputMap): Record<string, unknown> {
    return Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, v.value]));
}

main().catch(err => {
    process.stderr.write(`${err instanceof Error ? err.message : err}\n`);
    process.exit(1);
});
