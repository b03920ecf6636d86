/**
 * Approvals end to end through the binary: a run blocked on an approval is decided from a second
 * process and resumed to completion (or told it was denied); guards hold under --yolo; a denied
 * secrets read never reaches the model, the transcript or the session file.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEventLines, toolResultsOf, useE2E, type WireProtocol } from "./_harness.ts";

const e2e = useE2E();

const shiro = (args: string[], protocol: WireProtocol = "anthropic") => e2e.shiro(args, { protocol });

for (const decision of ["approve", "deny"] as const) {
  test(`a blocked run is decided (${decision}) from another process and resumed to completion`, async () => {
    e2e.fake.script(
      {
        text: "Writing it.",
        toolCalls: [
          { name: "glob", input: { pattern: "*" } },
          { name: "write_file", input: { path: "CHANGELOG.md", content: "# Changes\n" } },
        ],
      },
      { text: decision === "approve" ? "Changelog written." : "Left it alone." },
    );
    const blocked = await shiro(["-p", "write the changelog", "--approvals", "block", "--json"]);
    expect(blocked.code).toBe(3);
    const events = parseEventLines(blocked.stdout);
    const block = events.find((event) => event.type === "blocked")!;
    expect(events.at(-1)).toMatchObject({ type: "done", stop: "blocked" });
    expect(existsSync(join(e2e.dirs.cwd, "CHANGELOG.md"))).toBe(false);
    expect(e2e.fake.requests).toHaveLength(1);

    const pending = JSON.parse((await shiro(["approvals", "--json"])).stdout);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ id: block.approvalId, tool: "write_file", status: "pending", runId: block.runId, subject: "CHANGELOG.md" });

    const early = await shiro(["runs", "resume", String(block.runId)]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain("is still pending");

    const decided = await shiro([decision, String(block.approvalId).slice(0, 13)]);
    expect(decided.code).toBe(0);
    const resumed = await shiro(["runs", "resume", String(block.runId).slice(0, 13)]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe(decision === "approve" ? "Changelog written.\n" : "Left it alone.\n");
    expect(existsSync(join(e2e.dirs.cwd, "CHANGELOG.md"))).toBe(decision === "approve");
    const results = toolResultsOf(e2e.fake.requests[1]!);
    expect(results).toHaveLength(2);
    expect(results[1]!.output).toBe(decision === "approve" ? "Wrote 10 chars to CHANGELOG.md" : "User denied this tool call.");

    const log = parseEventLines(readFileSync(join(e2e.dirs.home, ".shiro-neko", "events", `${block.runId}.jsonl`), "utf8"));
    expect(log.at(-1)).toMatchObject({ type: "done", stop: "completed" });
    const snapshot = JSON.parse(readFileSync(join(e2e.dirs.home, ".shiro-neko", "runs", `${block.runId}.json`), "utf8"));
    expect(snapshot.status).toBe("completed");
    // The snapshot counts what the run spent before it blocked as well as after.
    const dones = log.filter((event) => event.type === "done") as { inputTokens: number; outputTokens: number }[];
    expect(dones).toHaveLength(2);
    expect(snapshot.usage).toEqual({
      inputTokens: dones[0]!.inputTokens + dones[1]!.inputTokens,
      outputTokens: dones[0]!.outputTokens + dones[1]!.outputTokens,
    });
    expect(snapshot.suspended).toBeUndefined();
    expect(JSON.parse((await shiro(["approvals", "--json"])).stdout)).toEqual([]);
  }, 30_000);
}

test("the [blocked] line names ids that resolve even when other runs blocked the same minute", async () => {
  const write = (path: string) => ({ toolCalls: [{ name: "write_file", input: { path, content: "x" } }] });
  e2e.fake.script(write("one.txt"), write("two.txt"), { text: "second run done." });
  const first = await shiro(["-p", "write one", "--approvals", "block"]);
  const second = await shiro(["-p", "write two", "--approvals", "block"]);
  expect([first.code, second.code]).toEqual([3, 3]);
  const hint = /\[blocked\] waiting for approval (\S+): shiro approve (\S+) \(or deny\), then shiro runs resume (\S+)\n/.exec(second.stderr)!;
  expect(hint[1]).toBe(hint[2]!);
  const approve = await shiro(["approve", hint[2]!]);
  expect(approve.stderr).toBe("");
  expect(approve.stdout).toStartWith("approved ");
  expect(approve.stdout).toContain("write_file two.txt");
  const resumed = await shiro(["runs", "resume", hint[3]!]);
  expect([resumed.code, resumed.stdout]).toEqual([0, "second run done.\n"]);
  expect(existsSync(join(e2e.dirs.cwd, "two.txt"))).toBe(true);
  expect(existsSync(join(e2e.dirs.cwd, "one.txt"))).toBe(false);
});

describe("guards and secrets", () => {
  test("the guard plugin refuses a destructive command even under --yolo, and the file survives", async () => {
    writeFileSync(join(e2e.dirs.cwd, "keep.txt"), "precious\n");
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "rm -rf keep.txt" } }] }, { text: "I will ask you instead." });
    // Without checkpoints: with one, a covered delete is a question instead (test/e2e/checkpoints.test.ts).
    const result = await shiro(["-p", "clean up", "--yolo", "--json", "--no-checkpoints"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(e2e.dirs.cwd, "keep.txt"))).toBe(true);
    const denied = parseEventLines(result.stdout).find((event) => event.type === "tool-denied")!;
    expect(denied).toMatchObject({ name: "bash", by: "plugin" });
    expect(String(denied.reason)).toStartWith("Blocked by the guard plugin: ");
  });

  test("a denied .env read never reaches the model, the transcript or the session file", async () => {
    writeFileSync(join(e2e.dirs.cwd, ".env"), "API_TOKEN=very-secret-value-123\n");
    e2e.fake.script({ toolCalls: [{ name: "read_file", input: { path: ".env" } }] }, { text: "I cannot read that." });
    const result = await shiro(["-p", "what is in .env?", "--yolo"], "chat");
    expect(result.code).toBe(0);
    const output = toolResultsOf(e2e.fake.requests[1]!)[0]!.output;
    expect(output).toContain("Denied: .env may hold secrets (an env file)");
    for (const request of e2e.fake.requests) expect(JSON.stringify(request.body)).not.toContain("very-secret-value-123");
    const sessions = join(e2e.dirs.home, ".shiro-neko", "sessions");
    for (const name of readdirSync(sessions)) expect(readFileSync(join(sessions, name), "utf8")).not.toContain("very-secret-value-123");
    const events = join(e2e.dirs.home, ".shiro-neko", "events");
    for (const name of readdirSync(events)) expect(readFileSync(join(events, name), "utf8")).not.toContain("very-secret-value-123");
  });
});

describe("giving up a blocked run", () => {
  test("runs cancel on a blocked run denies its approval and ends its log with a cancelled done", async () => {
    e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "x.txt", content: "x" } }] });
    const blocked = await shiro(["-p", "write x", "--approvals", "block", "--json"]);
    expect(blocked.code).toBe(3);
    const block = parseEventLines(blocked.stdout).find((event) => event.type === "blocked")!;
    const cancel = await shiro(["runs", "cancel", String(block.runId)]);
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toMatch(/^cancelled blocked run [0-9a-f-]{8,}; its pending approval was denied\n$/);
    const log = parseEventLines(readFileSync(join(e2e.dirs.home, ".shiro-neko", "events", `${block.runId}.jsonl`), "utf8"));
    expect(log.at(-1)).toMatchObject({ type: "done", stop: "aborted", cancelled: true });
    const snapshot = JSON.parse(readFileSync(join(e2e.dirs.home, ".shiro-neko", "runs", `${block.runId}.json`), "utf8"));
    expect([snapshot.status, snapshot.suspended]).toEqual(["cancelled", undefined]);
    expect(JSON.parse((await shiro(["approvals", "--json"])).stdout)).toEqual([]);
    expect((await shiro(["runs", "resume", String(block.runId)])).stderr).toContain("is not waiting for an approval (cancelled)");
    expect(existsSync(join(e2e.dirs.cwd, "x.txt"))).toBe(false);
  }, 30_000);
});

describe("installed plugins", () => {
  test("a plugin installed from the registry refuses a matching call, even under --yolo", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const dir = join(e2e.dirs.home, ".shiro-neko", "registry", "plugins");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "no-migrations.json"),
      JSON.stringify({
        name: "no-migrations",
        description: "keeps the agent out of migrations",
        deny: [{ tools: ["write_file"], pathPattern: "^migrations/", reason: "migrations are written by hand here" }],
      }),
    );
    e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "migrations/001.sql", content: "drop table x;" } }] }, { text: "ok" });
    const result = await shiro(["-p", "add a migration", "--yolo", "--json"], "chat");
    expect(result.code).toBe(0);
    const denied = parseEventLines(result.stdout).find((event) => event.type === "tool-denied")!;
    expect(denied).toMatchObject({ name: "write_file", by: "plugin" });
    expect(String(denied.reason)).toContain("no-migrations");
    expect(existsSync(join(e2e.dirs.cwd, "migrations", "001.sql"))).toBe(false);
  });
});
