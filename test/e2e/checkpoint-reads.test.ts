/**
 * What recording a turn's checkpoint reads, through the binary (strace): the records file
 * (`checkpoints/<hash16>/checkpoints.json`) is read once, by the locked update that appends the
 * turn's record; the prune after it judges the records that update wrote instead of reading
 * them again.
 */
import { describe, expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { hostTest } from "../host-packages.ts";
import { binaryEnv, ensureBinary, fakeEnv, useE2E } from "./_harness.ts";
import { runTraced, STRACE, traceLines } from "./_traced.ts";

const e2e = useE2E();

describe("recording a turn's checkpoint", () => {
  hostTest(
    STRACE,
    "reads the records file once, in the update that appends the record",
    async () => {
      const env = binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat"));
      const turn = async (path: string, trace?: string) => {
        e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path, content: `${path}\n` } }] }, { text: "done" });
        const run = await runTraced(ensureBinary(), ["--yolo", "-p", `write ${path}`], { cwd: e2e.dirs.cwd, env, out: trace });
        expect(run.code).toBe(0);
      };
      // The first turn makes the shadow repository and the records file; the second is the one traced.
      await turn("one.txt");
      const trace = join(e2e.dirs.home, "strace.txt");
      await turn("two.txt", trace);
      const opened = traceLines(trace).filter(
        (line) => /\/checkpoints\.json"/.test(line) && /\bopenat\(/.test(line) && line.includes("O_RDONLY") && !line.includes("ENOENT"),
      );
      expect(opened.length).toBe(1);
      const records = JSON.parse(readFileSync(opened[0]!.match(/"([^"]+\/checkpoints\.json)"/)![1]!, "utf8")) as { checkpoints: { prompt: string }[] };
      expect(records.checkpoints.map((record) => record.prompt)).toEqual(["write one.txt", "write two.txt"]);
    },
    120_000,
  );
});
