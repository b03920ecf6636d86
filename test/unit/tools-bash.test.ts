import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { callSubjects } from "../../lib/approval/rules.ts";
import { loadShellReader } from "../../lib/shell/reader.ts";
import { bashTool } from "../../lib/tools/bash.ts";
import { INTERRUPTED_MESSAGE, NO_OUTPUT_NOTE } from "../../lib/tools/bash-run.ts";
import type { ToolContext } from "../../lib/tools/types.ts";
import { errorOf } from "./tools-workspace.ts";

let root = "";

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "shiro-bash-")));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function makeContext(overrides: Partial<ToolContext> = {}): ToolContext & { chunks: string[] } {
  const chunks: string[] = [];
  return { root, signal: new AbortController().signal, emitOutput: (chunk) => chunks.push(chunk), callId: "call-1", chunks, ...overrides };
}

/** True while `pid` is a live process; a zombie (exited, not yet reaped) counts as gone. */
function isRunning(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

describe("bash tool", () => {
  test("declares its set, effect, default and command; its rule subjects are one peeled line per simple command", async () => {
    expect({ name: bashTool.name, set: bashTool.set, effect: bashTool.effect, decision: bashTool.decision }).toEqual({
      name: "bash",
      set: "core",
      effect: "exec",
      decision: "ask",
    });
    expect([bashTool.command?.({ command: "ls -la" }), bashTool.command?.({ command: 1 }), bashTool.commandInput?.("ls")]).toEqual([
      "ls -la",
      undefined,
      { command: "ls" },
    ]);
    await loadShellReader();
    expect(callSubjects(bashTool, { command: "ls -la" }, "/ws").subjects).toEqual(["ls -la"]);
    expect(callSubjects(bashTool, { command: "cd src && env X=1 /bin/ls  -la" }, "/ws").subjects).toEqual(["cd src", "ls -la"]);
  });

  test("reports the exit code with stdout and stderr sections", async () => {
    const ctx = makeContext();
    const result = await bashTool.execute({ command: "echo out; echo err >&2; exit 3" }, ctx);
    expect(result).toBe("exit: 3\n\nstdout:\nout\n\nstderr:\nerr");
    const streamed = ctx.chunks.join("");
    expect([streamed.length, streamed.includes("out\n"), streamed.includes("err\n")]).toEqual([8, true, true]);
  });

  test("leaves out empty sections and says when there was no output", async () => {
    expect(await bashTool.execute({ command: "echo only-err >&2" }, makeContext())).toBe("exit: 0\n\nstderr:\nonly-err");
    expect(await bashTool.execute({ command: "exit 0" }, makeContext())).toBe("exit: 0\n\n(no output)");
  });

  test("runs in the workspace root", async () => {
    expect(await bashTool.execute({ command: "pwd" }, makeContext())).toBe(`exit: 0\n\nstdout:\n${root}`);
  });

  test("streams output while the command is still running", async () => {
    const gate = join(root, "gate-live");
    const ctx = makeContext({
      emitOutput: (chunk) => {
        ctx.chunks.push(chunk);
        if (chunk.includes("ready")) writeFileSync(gate, "");
      },
    });
    // The command only finishes once the test has seen its first line, so output must be live.
    const command = `echo ready; for i in $(seq 100); do [ -e ${gate} ] && break; sleep 0.05; done; [ -e ${gate} ] && echo done`;
    const result = await bashTool.execute({ command, timeout: 10_000 }, ctx);
    expect(result).toBe("exit: 0\n\nstdout:\nready\ndone");
    expect(ctx.chunks.join("")).toBe("ready\ndone\n");
  });

  test("a timeout kills a child that ignores SIGTERM and its grandchild", async () => {
    const command = "trap '' TERM; (trap '' TERM; sleep 30) & echo $!; sleep 30";
    // The timeout leaves a loaded machine time to start the login shell and set the traps.
    const result = await bashTool.execute({ command, timeout: 2500 }, makeContext());
    const match = /^exit: 137 \(killed by SIGKILL; timeout is 2500ms\)\n\nstdout:\n(\d+)$/.exec(result);
    expect(match).not.toBeNull();
    // SIGKILL is sent to the whole tree; on a loaded machine a killed process may take a moment to die.
    const grandchild = Number(match![1]);
    for (let i = 0; i < 300 && isRunning(grandchild); i++) await Bun.sleep(10);
    expect(isRunning(grandchild)).toBe(false);
  });

  test("an interrupt throws the exact message with the output captured so far", async () => {
    const controller = new AbortController();
    const ctx = makeContext({ signal: controller.signal });
    ctx.emitOutput = (chunk) => {
      if (chunk.includes("started")) controller.abort();
    };
    const message = await errorOf(bashTool.execute({ command: "echo started; sleep 30 & echo $!; wait" }, ctx));
    expect(message).toStartWith(`${INTERRUPTED_MESSAGE}\n\nstdout:\nstarted`);
  });

  test("an interrupt kills the tree and says when nothing was printed", async () => {
    const controller = new AbortController();
    const pidFile = join(root, "interrupt-pid");
    const ctx = makeContext({ signal: controller.signal });
    const running = bashTool.execute({ command: `sleep 30 & echo $! > ${pidFile}; wait` }, ctx);
    for (let i = 0; i < 500 && !(existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n")); i++) await Bun.sleep(10);
    const sleeper = Number(readFileSync(pidFile, "utf8"));
    controller.abort();
    expect(await errorOf(running)).toBe(`${INTERRUPTED_MESSAGE}\n\n${NO_OUTPUT_NOTE}`);
    // The tree has its signals when the call ends; a member may still be in its exit (its pipes
    // closed, not yet a zombie) for a moment: bounded, far below the sleep's 30 s.
    for (let i = 0; i < 300 && isRunning(sleeper); i++) await Bun.sleep(10);
    expect(isRunning(sleeper)).toBe(false);
  });

  test("a signal aborted before the call runs nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const marker = join(root, "never");
    const message = await errorOf(bashTool.execute({ command: `touch ${marker}` }, makeContext({ signal: controller.signal })));
    expect(message).toBe(`${INTERRUPTED_MESSAGE}\n\n${NO_OUTPUT_NOTE}`);
    expect(existsSync(marker)).toBe(false);
  });

  test("long output keeps its tail with a note and fits the result cap", async () => {
    const result = await bashTool.execute({ command: "head -c 100000 /dev/zero | tr '\\0' a" }, makeContext());
    expect(result).toBe(`exit: 0\n\nstdout:\n[70500 earlier chars not shown]\n${"a".repeat(29_500)}`);
  });

  test("both streams overflowing share the budget", async () => {
    const command = "head -c 50000 /dev/zero | tr '\\0' o; head -c 50000 /dev/zero | tr '\\0' e >&2";
    const result = await bashTool.execute({ command }, makeContext());
    const errRoom = Math.floor(29_500 / 3);
    expect(result).toBe(
      `exit: 0\n\nstdout:\n[${50_000 - (29_500 - errRoom)} earlier chars not shown]\n${"o".repeat(29_500 - errRoom)}` +
        `\n\nstderr:\n[${50_000 - errRoom} earlier chars not shown]\n${"e".repeat(errRoom)}`,
    );
  });

  test("the timeout must lie between 1000 and 600000 ms", () => {
    const issue = (input: unknown) => v.safeParse(bashTool.schema, input).issues?.[0]?.message;
    expect(issue({ command: "ls", timeout: 999 })).toBe("timeout must be at least 1000 ms");
    expect(issue({ command: "ls", timeout: 600_001 })).toBe("timeout must be at most 600000 ms");
    expect(issue({ command: "ls", timeout: 1500.5 })).toBe("timeout must be a whole number of milliseconds");
    expect(issue({ command: "" })).toBe("command must not be empty");
    expect(v.safeParse(bashTool.schema, { command: "ls", timeout: 1000 }).success).toBe(true);
    expect(v.safeParse(bashTool.schema, { command: "ls", timeout: 600_000 }).success).toBe(true);
  });
});
