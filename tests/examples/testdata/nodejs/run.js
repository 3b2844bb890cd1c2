// Runs one operation of the pulumi CLI (up, preview, refresh or destroy) on the Node.js
// program of the current directory through the Automation API, for a machine without
// the Node.js language host: the project's own @pulumi/pulumi serves the program, as an
// inline program, to the CLI on PATH. The program is the project's entry point
// (package.json's main, or index) loaded as the language host loads it: TypeScript
// through ts-node with the project's tsconfig.json and typescript, the module's exports
// (or the result of an exported function) being the stack's outputs. The stack is the
// project's current one (`pulumi stack init` or `pulumi stack select` chose it).
//
//   node run.js <up|preview|refresh|destroy> [--yes] [--skip-preview] [--expect-no-changes]
"use strict";

const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

const dir = process.cwd();
const projectRequire = createRequire(path.join(dir, "package.json"));
const automation = projectRequire("@pulumi/pulumi/automation");
const tsutils = projectRequire("@pulumi/pulumi/tsutils");

// registerTypeScript registers ts-node with the options the language host gives it.
function registerTypeScript() {
    const tsconfig = "tsconfig.json";
    const { tsnodeRequire, typescriptRequire } = tsutils.typeScriptRequireStrings();
    const [major, minor] = projectRequire(typescriptRequire).version.split(".").map(Number);
    const nodeNext = major > 4 || (major === 4 && minor >= 7);
    projectRequire(tsnodeRequire).register({
        compiler: typescriptRequire,
        project: tsconfig,
        skipProject: !fs.existsSync(tsconfig),
        compilerOptions: {
            target: "ES2020",
            module: nodeNext ? "nodenext" : "commonjs",
            moduleResolution: nodeNext ? "nodenext" : "node",
            sourceMap: "true",
            ...tsutils.loadTypeScriptCompilerOptions(tsconfig),
        },
    });
}

async function program() {
    registerTypeScript();
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    const exported = projectRequire(path.resolve(dir, pkg.main || "."));
    return exported instanceof Function ? await exported() : exported;
}

// options maps the CLI flags the tests pass; any other is an error.
function options(flags) {
    const opts = { onOutput: out => process.stdout.write(out) };
    for (const flag of flags) {
        if (flag === "--expect-no-changes") {
            opts.expectNoChanges = true;
        } else if (!["--yes", "-y", "--skip-preview", "--non-interactive"].includes(flag)) {
            throw new Error(`run.js does not take ${flag}`);
        }
    }
    return opts;
}

async function main([operation, ...flags]) {
    const opts = options(flags);
    const workspace = await automation.LocalWorkspace.create({ workDir: dir, program });
    const current = await workspace.stack();
    if (!current) {
        throw new Error("no stack is selected: run `pulumi stack init` or `pulumi stack select` first");
    }
    const stack = await automation.Stack.select(current.name, workspace);
    switch (operation) {
        case "up": return stack.up(opts);
        case "preview": return stack.preview(opts);
        case "refresh": return stack.refresh(opts);
        case "destroy": return stack.destroy(opts);
        default: throw new Error(`run.js runs up, preview, refresh or destroy, not ${operation}`);
    }
}

main(process.argv.slice(2)).catch(err => {
    process.stderr.write(`${err instanceof Error ? err.message : err}\n`);
    process.exit(1);
});
