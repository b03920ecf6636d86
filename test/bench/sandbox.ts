/**
 * What the shell sandbox costs per command: the bash tool running `true` inside bubblewrap
 * (workspace-write, no network) against the same tool running it unconfined, interleaved, in the
 * same run, with an empty home so no dotfiles are read. Printed as the ratio of the medians (and the absolute difference, for scale).
 * Skipped, with a line saying why, where bwrap does not work.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectSandbox } from "../../lib/sandbox/detect.ts";
import { createCommandSandbox } from "../../lib/sandbox/session.ts";
import { bashTool } from "../../lib/tools/bash.ts";
import type { ToolContext } from "../../lib/tools/types.ts";
import { median } from "./baseline.ts";

export async function benchSandbox(runs = 40): Promise<void> {
  const status = detectSandbox({ config: { mode: "workspace-write" }, keep: false });
  if (status.mode === "off") {
    console.log(`sandbox: skipped, ${status.notice ?? status.refusal ?? "no sandbox runner here"}`);
    return;
  }
  const root = realpathSync(mkdtempSync(join(tmpdir(), "shiro-bench-sandbox-")));
  const ctx = (sandbox?: ToolContext["sandbox"]): ToolContext => ({
    root,
    signal: new AbortController().signal,
    emitOutput: () => {},
    callId: "bench",
    sandbox,
  });
  const sandboxed = ctx(createCommandSandbox(status));
  const plain = ctx();
  const time = async (context: ToolContext) => {
    const t0 = performance.now();
    const result = await bashTool.execute({ command: "true" }, context);
    if (!result.startsWith("exit: 0")) throw new Error(`bench command failed: ${result}`);
    return performance.now() - t0;
  };
  // `bash -l` reads the home's dotfiles; an empty home keeps them out of both sides.
  const savedHome = process.env.HOME;
  process.env.HOME = root;
  try {
    await time(sandboxed);
    await time(plain);
    const inside: number[] = [];
    const outside: number[] = [];
    for (let i = 0; i < runs; i++) {
      inside.push(await time(sandboxed));
      outside.push(await time(plain));
    }
    const [a, b] = [median(inside), median(outside)];
    console.log(
      `sandbox: bash "true" in ${status.runner!.kind} ${a.toFixed(1)} ms vs unconfined ${b.toFixed(1)} ms (median of ${runs}): ratio ${(a / b).toFixed(2)}x, +${(a - b).toFixed(1)} ms per command`,
    );
  } finally {
    process.env.HOME = savedHome;
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchSandbox(Number(process.argv[2] ?? 40));
