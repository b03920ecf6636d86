/**
 * `bun run bench`: every benchmark, one after another. Start-up always runs; the others run when
 * their module is present, and a missing one is named and skipped.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { benchStartup } from "./startup.ts";

interface OptionalBench {
  file: string;
  exportName: string;
  load: () => Promise<Record<string, unknown>>;
}

// Literal import() specifiers, so a reader (and the bundler) sees exactly what may load.
const OPTIONAL: OptionalBench[] = [
  { file: "prune.ts", exportName: "benchPrune", load: () => import("./prune.ts") },
  { file: "loop.ts", exportName: "benchLoop", load: () => import("./loop.ts") },
];

await benchStartup();
for (const bench of OPTIONAL) {
  console.log("");
  if (!existsSync(join(import.meta.dir, bench.file))) {
    console.log(`${bench.exportName}: skipped, test/bench/${bench.file} is not there`);
    continue;
  }
  const run = (await bench.load())[bench.exportName];
  if (typeof run !== "function") throw new Error(`test/bench/${bench.file} does not export ${bench.exportName}()`);
  await run();
}
