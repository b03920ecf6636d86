/**
 * The run log across processes, through the built binary: list/show/events after a run,
 * a detached run followed with `runs tail`, and `runs cancel` stopping a live run from another
 * process so that its log ends with a cancelled `done`.
 */
import { shortestUniquePrefix } from "../../lib/platform/ids.ts";
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, binaryEnv, fakeEnv, parseEventLines, useE2E, withoutHostNotices } from "./_harness.ts";

const e2e = useE2E();

const shiro = (args: string[], env: Record<string, string> = {}) => e2e.shiro(args, { env });

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("shiro runs", () => {
  test("list, show and events read back a finished run; the log holds no transient deltas", async () => {
    e2e.fake.script({ text: "Looking", toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { text: "All done." });
    const first = await shiro(["-p", "inventory the folder", "--json"]);
    expect(first.code).toBe(0);
    const streamed = parseEventLines(first.stdout);
    const runId = streamed[0]!.runId as string;

    const list = await shiro(["runs", "list", "--json"]);
    const [snapshot] = JSON.parse(list.stdout);
    expect(snapshot).toMatchObject({ id: runId, status: "completed", prompt: "inventory the folder", steps: 2, stop: "completed" });

    const show = await shiro(["runs", "show", runId.slice(0, 13)]);
    expect(show.stdout).toContain(`run      ${runId}`);
    expect(show.stdout).toContain("status   completed");

    const events = await shiro(["runs", "events", runId, "--json"]);
    const logged = parseEventLines(events.stdout);
    // The notice is the start-up diagnostic (headless withholds tools without --yolo), logged with the run.
    expect(withoutHostNotices(logged).map((event) => event.type)).toEqual([
      "run-start",
      "notice",
      "tool-start",
      "message",
      "tool-call",
      "tool-result",
      "message",
      "done",
    ]);
    expect(logged.map((event) => event.seq)).toEqual(logged.map((_, i) => i + 1));
    const persisted = streamed.filter((event) => !["text", "reasoning", "tool-output"].includes(event.type as string));
    expect(logged.map(({ seq: _s, at: _a, ...rest }) => rest)).toEqual(persisted);

    const onlyCalls = await shiro(["runs", "events", runId, "--json", "--type", "tool-call"]);
    expect(parseEventLines(onlyCalls.stdout).map((event) => event.name)).toEqual(["glob"]);
    expect((await shiro(["runs", "show", "ffffffff"])).stderr).toBe('shiro: no run matching "ffffffff"\n');
  }, 30_000);

  test("a detached run prints its id, runs in the background, and runs tail follows it to the end", async () => {
    // The command waits for the file `go`, made once the tail has shown the call: the tail follows a live run.
    const command = "until test -e go; do sleep 0.02; done; echo detached-output";
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command } }] }, { text: "Background work finished." });
    const started = await shiro(["-p", "work in the background", "--detach", "--yolo"]);
    expect(started.code).toBe(0);
    const runId = started.stdout.trim();
    expect(runId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The full id: a short prefix could name another run started the same minute, or none yet.
    expect(started.stderr).toContain(`follow it with: shiro runs tail ${runId}\n`);
    const tail = spawn(BINARY, ["runs", "tail", runId], { cwd: e2e.dirs.cwd, env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")) });
    let stdout = "";
    tail.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    const code = new Promise<number | null>((resolve) => tail.on("close", resolve));
    const killer = setTimeout(() => tail.kill("SIGKILL"), 20_000);
    await waitFor(() => (stdout.includes(`[tool] bash ${JSON.stringify({ command })}`) ? true : undefined));
    expect(stdout).not.toContain("Background work finished.");
    writeFileSync(join(e2e.dirs.cwd, "go"), "");
    expect(await code).toBe(0);
    clearTimeout(killer);
    expect(stdout).toContain("Background work finished.");
    expect(stdout.trimEnd().split("\n").at(-1)).toBe("[done] completed, 2 steps");
    const snapshot = JSON.parse(readFileSync(join(e2e.dirs.home, ".shiro-neko", "runs", `${runId}.json`), "utf8"));
    expect(snapshot).toMatchObject({ status: "completed", detached: true });
  }, 30_000);

  test("runs cancel stops a live run from another process; its log ends with a cancelled done", async () => {
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "sleep 30" } }] });
    const running = shiro(["-p", "a long task", "--yolo", "--json"]);
    const runsDir = join(e2e.dirs.home, ".shiro-neko", "runs");
    const runFile = await waitFor(() => {
      try {
        return readdirSync(runsDir).find((name) => name.endsWith(".json"));
      } catch {
        return undefined;
      }
    });
    const runId = runFile.slice(0, -5);
    // The snapshot comes first; the event log may not exist yet.
    const eventsFile = join(e2e.dirs.home, ".shiro-neko", "events", `${runId}.jsonl`);
    await waitFor(() => (existsSync(eventsFile) && readFileSync(eventsFile, "utf8").includes('"tool-call"') ? true : undefined));
    const cancel = await shiro(["runs", "cancel", runId]);
    // Printed ids are unique among sessions and runs: this run and its session share their first 8 characters.
    const everyId = [...readdirSync(runsDir), ...readdirSync(join(e2e.dirs.home, ".shiro-neko", "sessions")).filter((name) => name.endsWith(".json"))].map(
      (name) => name.slice(0, -5),
    );
    const short = shortestUniquePrefix(runId, everyId);
    expect(cancel.stdout).toBe(`cancel requested for run ${short}\n`);
    const result = await running;
    expect(result.code).toBe(130);
    const events = parseEventLines(readFileSync(join(e2e.dirs.home, ".shiro-neko", "events", `${runId}.jsonl`), "utf8"));
    expect(events.at(-1)).toMatchObject({ type: "done", stop: "aborted", cancelled: true });
    expect(events.find((event) => event.type === "tool-error")!.error).toStartWith("The user interrupted this command.");
    const show = await shiro(["runs", "show", runId, "--json"]);
    expect(JSON.parse(show.stdout).status).toBe("cancelled");
    expect((await shiro(["runs", "cancel", runId])).stderr).toBe(`shiro: run ${short} is not running (cancelled)\n`);
  }, 40_000);
});

describe("a run that dies", () => {
  test("a SIGKILLed run leaves a log that parses and a snapshot shown as interrupted", async () => {
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "sleep 30" } }] });
    const { spawn } = await import("node:child_process");
    const { BINARY } = await import("./_harness.ts");
    const child = spawn(BINARY, ["-p", "long", "--yolo"], {
      cwd: e2e.dirs.cwd,
      stdio: "ignore",
      env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")),
    });
    const eventsDir = join(e2e.dirs.home, ".shiro-neko", "events");
    const file = await waitFor(() => {
      try {
        const name = readdirSync(eventsDir)[0];
        return name && readFileSync(join(eventsDir, name), "utf8").includes('"tool-call"') ? name : undefined;
      } catch {
        return undefined;
      }
    });
    const exited = new Promise((resolve) => child.on("close", resolve));
    child.kill("SIGKILL");
    await exited;
    const runId = file.slice(0, -".jsonl".length);
    const events = await shiro(["runs", "events", runId, "--json"]);
    expect(events.code).toBe(0);
    expect(withoutHostNotices(parseEventLines(events.stdout)).map((event) => event.type)).toEqual(["run-start", "tool-start", "tool-call"]);
    const [snapshot] = JSON.parse((await shiro(["runs", "list", "--json"])).stdout);
    expect(snapshot).toMatchObject({ id: runId, status: "interrupted" });
    const state = join(e2e.dirs.home, ".shiro-neko");
    const everyId = [
      ...readdirSync(join(state, "runs")),
      ...(existsSync(join(state, "sessions")) ? readdirSync(join(state, "sessions")) : []).filter((name) => name.endsWith(".json")),
    ].map((name) => name.slice(0, -5));
    expect((await shiro(["runs", "tail", runId])).stderr).toBe(
      `shiro: run ${shortestUniquePrefix(runId, everyId)} ended without finishing (its process is gone)\n`,
    );
  }, 30_000);
});

describe("shiro runs search", () => {
  test("finds past runs by prompt, message, tool input and tool output; every word must match", async () => {
    writeFileSync(join(e2e.dirs.cwd, "notes.txt"), "the flaky-cache-key lives in config\n");
    e2e.fake.script({ toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] }, { text: "Found the cache setting." }, { text: "Unrelated answer." });
    expect((await shiro(["-p", "where is the cache configured?"])).code).toBe(0);
    expect((await shiro(["-p", "say something else"])).code).toBe(0);

    const hits = JSON.parse((await shiro(["runs", "search", "flaky-cache-key config", "--json"])).stdout);
    expect(hits.map((hit: { kind: string; name?: string }) => [hit.kind, hit.name])).toEqual([["tool-result", "read_file"]]);
    expect(hits[0].excerpt).toContain("the flaky-cache-key lives in config");

    const byPrompt = JSON.parse((await shiro(["runs", "search", "CACHE", "--json"])).stdout);
    expect(byPrompt.map((hit: { kind: string }) => hit.kind)).toEqual(["prompt", "tool-result", "message"]);
    const text = await shiro(["runs", "search", "cache setting"]);
    expect(text.stdout).toMatch(/^[0-9a-f-]{8,}\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+message\s+Found the cache setting\.\n$/);
    expect((await shiro(["runs", "search", "nothing-like-this"])).stdout).toBe('no run matches "nothing-like-this"\n');
  }, 30_000);
});
