import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describeSubject, formatAge, renderPendingTable } from "../../lib/ui/approvals-table.ts";
import { uniquePrefixes } from "../../lib/store/short-ids.ts";
import { createBlockingDecision, createGate } from "../../lib/extensions/gate.ts";
import { UserError } from "../../lib/platform/errors.ts";
import { uuidv7 } from "../../lib/platform/ids.ts";
import { paths } from "../../lib/platform/paths.ts";
import { parsePermissionRules } from "../../lib/approval/rules.ts";
import { createPluginHost } from "../../lib/extensions/plugin-host.ts";
import { createPending, decide, forRun, get, listPending, type ApprovalRecord, type PendingApprovalInput } from "../../lib/store/approvals.ts";
import { writeJsonAtomic } from "../../lib/state-file/json-file.ts";
import { useTempHome } from "./temp-home.ts";

const ROOT = resolve(import.meta.dir, "../..");
const home = useTempHome("shiro-approvals-");

const request = (overrides: Partial<PendingApprovalInput> = {}): PendingApprovalInput => ({
  id: uuidv7(),
  runId: "run-a",
  sessionId: "session-a",
  callId: "call-1",
  tool: "bash",
  input: { command: "make deploy" },
  subjects: ["make deploy"],
  cwd: "/work/app",
  suggestedPattern: "make *",
  ...overrides,
});

const AT = new Date("2025-03-01T10:00:00.000Z");
const LATER = new Date("2025-03-01T10:05:00.000Z");

describe("approvals store", () => {
  test("a pending record is written whole, versioned, in approvals.json", () => {
    const input = request({ subjects: ["src/a.ts", "src/b.ts"], tool: "move_file", input: { from: "src/a.ts", to: "src/b.ts" }, suggestedPattern: "*" });
    const record = createPending(input, AT);
    const expected: ApprovalRecord = {
      id: input.id,
      runId: "run-a",
      sessionId: "session-a",
      callId: "call-1",
      tool: "move_file",
      input: { from: "src/a.ts", to: "src/b.ts" },
      subject: "src/a.ts, src/b.ts",
      subjects: ["src/a.ts", "src/b.ts"],
      suggestedPattern: "*",
      cwd: "/work/app",
      status: "pending",
      requestedAt: "2025-03-01T10:00:00.000Z",
    };
    expect(record).toEqual(expected);
    expect(JSON.parse(readFileSync(paths.approvals(), "utf8"))).toEqual({ version: 1, approvals: [expected] });
    expect(createPending(input, LATER)).toEqual(expected);
    expect(listPending()).toEqual([expected]);
  });

  test("decide by unique prefix; the record keeps who, when and the answer", () => {
    const first = createPending(request({ id: "0195aaaa-0000-7000-8000-000000000001" }), AT);
    const second = createPending(request({ id: "0195aaaa-0000-7000-8000-000000000002", callId: "call-2" }), AT);
    expect(() => decide("0195aaaa", "approved", "cli")).toThrow(new UserError('"0195aaaa" matches 2 pending approvals; give more of the id'));
    const approved = decide("0195aaaa-0000-7000-8000-000000000001", "approved", "cli", "once", LATER);
    expect(approved).toEqual({ ...first, status: "approved", decidedAt: "2025-03-01T10:05:00.000Z", decidedBy: "cli", answer: "once" });
    const denied = decide("0195AAAA", "denied", "user", "once", LATER);
    expect(denied).toEqual({ ...second, status: "denied", decidedAt: "2025-03-01T10:05:00.000Z", decidedBy: "user" });
    expect(get(first.id)).toEqual(approved);
    expect(listPending()).toEqual([]);
    expect(() => decide(first.id, "denied", "cli")).toThrow(new UserError(`approval ${first.id} was already approved`));
    expect(() => decide("0195aaaa", "denied", "cli")).toThrow(new UserError('no pending approval matching "0195aaaa"'));
    expect(() => decide("ffff", "approved", "cli")).toThrow(new UserError('no pending approval matching "ffff"'));
    expect(() => decide("", "approved", "cli")).toThrow(new UserError('no pending approval matching ""'));
  });

  test("a prefix shared with decided records still picks the one pending", () => {
    createPending(request({ id: "0195bbbb-0000-7000-8000-000000000001" }), AT);
    const open = createPending(request({ id: "0195bbbb-0000-7000-8000-000000000002" }), AT);
    decide("0195bbbb-0000-7000-8000-000000000001", "denied", "cli");
    expect(decide("0195bbbb", "approved", "cli", "always").id).toBe(open.id);
    expect(get(open.id)?.answer).toBe("always");
  });

  test("listPending filters by directory; forRun returns a run's records in order", () => {
    const a = createPending(request({ runId: "run-1", cwd: "/work/app" }), AT);
    const b = createPending(request({ runId: "run-2", cwd: "/work/lib" }), AT);
    const c = createPending(request({ runId: "run-1", cwd: "/work/app", callId: "call-2" }), AT);
    decide(c.id, "approved", "cli");
    expect(listPending({ cwd: "/work/app" })).toEqual([a]);
    expect(listPending().map((record) => record.id)).toEqual([a.id, b.id]);
    expect(forRun("run-1").map((record) => [record.id, record.status])).toEqual([
      [a.id, "pending"],
      [c.id, "approved"],
    ]);
    expect(get("missing")).toBeUndefined();
  });

  test("decided records beyond the newest 500 are dropped; pending ones are kept", () => {
    const decided = Array.from({ length: 501 }, (_, i) => ({
      ...createRecord(`decided-${String(i).padStart(3, "0")}`),
      status: "denied" as const,
      decidedAt: AT.toISOString(),
      decidedBy: "cli" as const,
    }));
    writeJsonAtomic(paths.approvals(), { version: 1, approvals: [createRecord("old-pending"), ...decided] });
    createPending(request({ id: "new-pending" }), AT);
    const ids = (JSON.parse(readFileSync(paths.approvals(), "utf8")) as { approvals: ApprovalRecord[] }).approvals.map((record) => record.id);
    expect(ids.length).toBe(502);
    expect(ids.slice(0, 3)).toEqual(["old-pending", "decided-001", "decided-002"]);
    expect(ids.at(-1)).toBe("new-pending");
  });

  test("a corrupt file is reported by readers and moved aside by the next write", () => {
    const dir = dirname(paths.approvals());
    mkdirSync(dir, { recursive: true });
    writeFileSync(paths.approvals(), "{ not json");
    expect(() => listPending()).toThrow(
      new RegExp(`^${paths.approvals().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON \\(.+\\)\\. Move it aside to start afresh\\.$`),
    );
    const created = createPending(request(), AT);
    expect(listPending()).toEqual([created]);
    const backups = readdirSync(dir).filter((name) => name.startsWith("approvals.json.corrupt-"));
    expect(backups.length).toBe(1);
    expect(readFileSync(join(dir, backups[0]!), "utf8")).toBe("{ not json");
  });

  test("two processes creating 50 pending approvals each leave 100 records", async () => {
    const script = [
      `import { createPending } from ${JSON.stringify(join(ROOT, "lib/store/approvals.ts"))};`,
      `import { uuidv7 } from ${JSON.stringify(join(ROOT, "lib/platform/ids.ts"))};`,
      "const tag = process.argv[2];",
      "for (let i = 0; i < 50; i++) createPending({ id: uuidv7(), runId: tag, sessionId: 's', callId: `${tag}-${i}`, tool: 'bash', input: { i }, subjects: [], cwd: '/w', suggestedPattern: '*' });",
    ].join("\n");
    const file = join(home.dir, "writer.ts");
    writeFileSync(file, script);
    const codes = await Promise.all(["p1", "p2"].map((tag) => _run([file, tag])));
    expect(codes.map((run) => run.code)).toEqual([0, 0]);
    const records = listPending();
    expect(records.length).toBe(100);
    expect(new Set(records.map((record) => record.id)).size).toBe(100);
    expect(forRun("p1").map((record) => record.callId)).toEqual(Array.from({ length: 50 }, (_, i) => `p1-${i}`));
    expect(readdirSync(join(home.dir, ".shiro-neko")).sort()).toEqual(["approvals.json"]);
  });
});

function createRecord(id: string): ApprovalRecord {
  return {
    id,
    runId: "r",
    sessionId: "s",
    callId: "c",
    tool: "bash",
    input: {},
    subject: "",
    subjects: [],
    suggestedPattern: "*",
    cwd: "/w",
    status: "pending",
    requestedAt: AT.toISOString(),
  };
}

function _run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, SHIRO_HOME: home.dir, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe("blocking decisions", () => {
  test("--approvals block persists the question under the request's id and suspends the call", async () => {
    const gate = createGate({
      rules: parsePermissionRules({}),
      plugins: createPluginHost({ cwd: "/work/app", writeStderr: () => {} }),
      yolo: false,
      runId: "run-9",
      sessionId: "session-9",
      decide: createBlockingDecision({ runId: "run-9", sessionId: "session-9" }),
    });
    const result = await gate.check({ callId: "call-7", tool: undefined, name: "web_fetch", input: { url: "https://example.com" }, cwd: "/work/app" });
    if (result.allowed || result.by !== "block") throw new Error(`expected a block, got ${JSON.stringify(result)}`);
    const [record] = forRun("run-9");
    expect(record).toEqual({
      id: result.request.id,
      runId: "run-9",
      sessionId: "session-9",
      callId: "call-7",
      tool: "web_fetch",
      input: { url: "https://example.com" },
      subject: "",
      subjects: [],
      suggestedPattern: "*",
      cwd: "/work/app",
      status: "pending",
      requestedAt: record!.requestedAt,
    });
  });
});

describe("shiro approvals / approve / deny", () => {
  test("the table shows ids long enough to tell apart, ages, one-line subjects", () => {
    const now = Date.parse("2025-03-01T12:00:00.000Z");
    const rows: ApprovalRecord[] = [
      {
        ...createRecord("0195cccc-1111-7000-8000-000000000001"),
        runId: "0195dddd-0000-7000-8000-00000000000a",
        subject: "git push origin main\n--tags",
        requestedAt: "2025-03-01T11:59:30.000Z",
        cwd: "/work/app",
      },
      {
        ...createRecord("0195cccc-2222-7000-8000-000000000002"),
        tool: "mcp__gh__merge",
        runId: "0195eeee-0000-7000-8000-00000000000b",
        input: { pr: 7 },
        requestedAt: "2025-03-01T09:00:00.000Z",
        cwd: "/work/lib",
      },
    ];
    expect(renderPendingTable(rows, now).split("\n")).toEqual([
      "id          age  tool            subject                      run       cwd",
      "0195cccc-1  30s  bash            git push origin main --tags  0195dddd  /work/app",
      '0195cccc-2  3h   mcp__gh__merge  {"pr":7}                     0195eeee  /work/lib',
    ]);
  });

  test("helpers: unique prefixes, ages, subjects cut to 80", () => {
    expect(uniquePrefixes(["0195cccc-1111", "0195cccc-1122", "0195dddd-0000"])).toEqual(["0195cccc-111", "0195cccc-112", "0195dddd"]);
    expect(formatAge(59_000)).toBe("59s");
    expect(formatAge(61 * 60_000)).toBe("1h");
    expect(formatAge(3 * 86_400_000)).toBe("3d");
    expect(describeSubject({ subject: "x".repeat(100), input: {} })).toBe(`${"x".repeat(79)}…`);
  });

  test("approve and deny print the decision; an unknown id exits 1", async () => {
    const one = createPending(request({ id: "0195ffff-0000-7000-8000-000000000001" }), AT);
    createPending(request({ id: "0195ffff-0000-7000-8000-000000000002", tool: "write_file", subjects: ["src/a.ts"], input: { path: "src/a.ts" } }), AT);
    const cli = (...args: string[]) => _run([join(ROOT, "cmd/shiro.ts"), ...args]);

    const listed = await cli("approvals", "--json");
    expect([listed.code, (JSON.parse(listed.stdout) as ApprovalRecord[]).map((record) => record.id)]).toEqual([
      0,
      [one.id, "0195ffff-0000-7000-8000-000000000002"],
    ]);
    expect(await cli("approve", "0195ffff-0000-7000-8000-000000000001")).toEqual({
      code: 0,
      stdout: "approved 0195ffff-0000-7000-8000-000000000001: bash make deploy\nresume the run with: shiro runs resume run-a\n",
      stderr: "",
    });
    // Ids are shown as long as they must be to tell them from the others on disk.
    // The run id is shown as long as it must be to tell it from the other runs on disk.
    mkdirSync(paths.runsDir(), { recursive: true });
    for (const id of ["0195eeee-aaaa-7000-8000-000000000001", "0195eeee-bbbb-7000-8000-000000000002"]) writeFileSync(join(paths.runsDir(), `${id}.json`), "{}");
    createPending(request({ id: "0195ffff-0000-7000-8000-000000000003", runId: "0195eeee-aaaa-7000-8000-000000000001" }), AT);
    expect(await cli("deny", "0195FFFF")).toEqual({ code: 1, stdout: "", stderr: 'shiro: "0195FFFF" matches 2 pending approvals; give more of the id\n' });
    expect(await cli("deny", "0195ffff-0000-7000-8000-000000000002")).toEqual({
      code: 0,
      stdout: "denied 0195ffff-0000-7000-8000-000000000002: write_file src/a.ts\nresume the run with: shiro runs resume run-a\n",
      stderr: "",
    });
    expect(await cli("approve", "0195ffff-0000-7000-8000-000000000003")).toEqual({
      code: 0,
      stdout: "approved 0195ffff: bash make deploy\nresume the run with: shiro runs resume 0195eeee-a\n",
      stderr: "",
    });
    expect(await cli("approve", "nope")).toEqual({ code: 1, stdout: "", stderr: 'shiro: no pending approval matching "nope"\n' });
    expect(await cli("approvals")).toEqual({ code: 0, stdout: "no pending approvals\n", stderr: "" });
    expect(get(one.id)?.decidedBy).toBe("cli");
  });
});
