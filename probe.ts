import { loadShellParser } from "./lib/shell/parser.ts";
import { inspectCommand } from "./plugins/guard.ts";
await loadShellParser();
const cmds: string[] = JSON.parse(await Bun.file("/tmp/cmds2.json").text());
let pass = 0;
for (const c of cmds) { const f = inspectCommand(c); if (!f) pass++; console.log((f ? (f.action === "refuse" ? "REFUSE " + f.rule : "ASK    " + f.unreadable + ": " + f.why) : "PASS").padEnd(70).slice(0,70), "|", JSON.stringify(c)); }
console.log(`${pass} of ${cmds.length} pass`);
