// A normal Pulumi program (`pulumi up`): the exported function's result is the stack's
// outputs.
import { program } from "./program";

export = program;
