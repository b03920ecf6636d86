/**
 * `bun run bench`: every benchmark, one after another. Start-up always runs; the others run when
 * their module is present, and a missing one is named and skipped.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { benchStartup } from "./startup.ts";

// Imported by computed URL: a literal import() of a missing file would fail the type-check.
const OPTIONAL = [
  { file: "prune.ts", exportName: "benchPrune" },
  { file: "loop.ts", exportName: "benchLoop" },
  { file: "first-request.ts", exportName: "benchFirstRequest" },
  { file: "request-budget.ts", exportName: "benchRequestBudget" },
  { file: "redact.ts", exportName: "benchRedact" },
  { file: "sandbox.ts", exportName: "benchSandbox" },
  { file: "recall.ts", exportName: "benchRecall" },
  { file: "shell-parser.ts", exportName: "benchShellParser" },
  { file: "search.ts", exportName: "benchSearch" },
  { file: "checkpoints.ts", exportName: "benchCheckpoints" },
];

await benchStartup();
for (const bench of OPTIONAL) {
  console.log("");
  if (!existsSync(join(import.meta.dir, bench.file))) {
    console.log(`${bench.exportName}: skipped, test/bench/${bench.file} is not there`);
    continue;
  }
  const module = (await import(new URL(`./${bench.file}`, import.meta.url).href)) as Record<string, unknown>;
  const run = module[bench.exportName];
  if (typeof run !== "function") throw new Error(`test/bench/${bench.file} does not export ${bench.exportName}()`);
  await run();
}
