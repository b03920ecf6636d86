/** `shiro memory …` as a user runs it: the project is the git root above the current directory. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import { findProjectRoot } from "../../lib/config/project.ts";
import { writeJsonAtomic } from "../../lib/state-file/json-file.ts";
import type { MemoryEntry } from "../../lib/store/memory.ts";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import { useTempHome } from "./temp-home.ts";

const SHIRO = join(import.meta.dir, "..", "..", "cmd", "shiro.ts");
const home = useTempHome("shiro-memory-cli-");
let project: string;

beforeEach(() => {
  project = join(home.dir, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, "src", "deep"), { recursive: true });
});

async function shiro(cwd: string, ...args: (string | { env: Record<string, string> })[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const extra = args.find((arg): arg is { env: Record<string, string> } => typeof arg !== "string");
  const child = Bun.spawn({
    cmd: [process.execPath, SHIRO, ...args.filter((arg): arg is string => typeof arg === "string")],
    cwd,
    env: { ...process.env, SHIRO_HOME: home.dir, ...extra?.env },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

/** A listing without its id column (the ids are random; `show` tests read them from --json). */
const withoutIds = (result: { code: number; stdout: string; stderr: string }) => ({ ...result, stdout: result.stdout.replace(/^\S+ {2}(?=\()/gm, "") });

test("the project root is the nearest folder holding .git, else the directory itself", () => {
  expect(findProjectRoot(join(project, "src", "deep"))).toBe(project);
  expect(findProjectRoot(project)).toBe(project);
  const loose = join(home.dir, "no-repo-here");
  mkdirSync(loose);
  expect(findProjectRoot(loose)).toBe(loose);
});

test("add, list, forget from any folder of the project", async () => {
  const deep = join(project, "src", "deep");
  expect(await shiro(deep, "memory", "list")).toEqual({ code: 0, stdout: "nothing remembered about this project yet\n", stderr: "" });
  expect(await shiro(deep, "memory", "add", "command", "tests run with bun test")).toEqual({
    code: 0,
    stdout: "Remembered as command (1 stored): tests run with bun test\n",
    stderr: "",
  });
  expect((await shiro(project, "memory", "add", "gotcha", "the seed needs the migration first")).stdout).toBe(
    "Remembered as gotcha (2 stored): the seed needs the migration first\n",
  );
  expect((await shiro(project, "memory", "add", "gotcha", "the seed needs the migration first")).stdout).toBe(
    "Already recorded: the seed needs the migration first\n",
  );
  const file = JSON.parse(readFileSync(paths.projectMemory(project), "utf8"));
  file.entries[0].hits = 2;
  await Bun.write(paths.projectMemory(project), JSON.stringify(file));
  expect(withoutIds(await shiro(project, "memory", "list")).stdout).toBe(
    "(gotcha) the seed needs the migration first\n(command) tests run with bun test  [recalled 2x]\n",
  );
  const listed = JSON.parse((await shiro(project, "memory", "list", "--json")).stdout);
  expect(listed.map((entry: { text: string }) => entry.text)).toEqual(["the seed needs the migration first", "tests run with bun test"]);
  expect((await shiro(project, "memory", "forget", "SEED")).stdout).toBe("Forgot 1 memory.\n");
  expect((await shiro(project, "memory", "forget", "seed")).stdout).toBe('No memory matches "seed".\n');
});

test("add and forget --json print what they did, for scripts", async () => {
  const added = await shiro(project, "memory", "add", "--json", "fact", "the API lives under /v2");
  expect([added.code, added.stderr]).toEqual([0, ""]);
  const stored = JSON.parse(added.stdout);
  expect(stored).toEqual({
    status: "stored",
    count: 1,
    entry: { id: stored.entry.id, kind: "fact", text: "the API lives under /v2", createdAt: stored.entry.createdAt, hits: 0 },
  });
  const again = JSON.parse((await shiro(project, "memory", "add", "fact", "the API lives under /v2", "--json")).stdout);
  expect(again).toEqual({ ...stored, status: "duplicate", entry: { ...stored.entry, verifiedAt: again.entry.verifiedAt } });
  expect(Date.parse(again.entry.verifiedAt)).toBeGreaterThanOrEqual(Date.parse(stored.entry.createdAt));
  expect(JSON.parse((await shiro(project, "memory", "forget", "--json", "api")).stdout)).toEqual({ removed: 1 });
  expect(JSON.parse((await shiro(project, "memory", "forget", "--json", "api")).stdout)).toEqual({ removed: 0 });
});

test("--global adds, lists and forgets the notes shared by every project, leaving the project's alone", async () => {
  const other = join(home.dir, "other");
  mkdirSync(other);
  expect(await shiro(project, "memory", "list", "--global")).toEqual({ code: 0, stdout: "nothing remembered globally yet\n", stderr: "" });
  expect(await shiro(project, "memory", "add", "fact", "the user's shell is fish", "--global")).toEqual({
    code: 0,
    stdout: "Remembered as fact (global, 1 stored): the user's shell is fish\n",
    stderr: "",
  });
  expect((await shiro(other, "memory", "add", "--global", "decision", "prefers pnpm")).stdout).toBe(
    "Remembered as decision (global, 2 stored): prefers pnpm\n",
  );
  expect((await shiro(other, "memory", "add", "--global", "decision", "prefers pnpm")).stdout).toBe("Already recorded (global): prefers pnpm\n");
  expect(withoutIds(await shiro(project, "memory", "list")).stdout).toBe("nothing remembered about this project yet\n");
  expect(withoutIds(await shiro(other, "memory", "list", "--global")).stdout).toBe(
    "(decision, global) prefers pnpm\n(fact, global) the user's shell is fish\n",
  );
  const listed = JSON.parse((await shiro(project, "memory", "list", "--global", "--json")).stdout);
  expect(listed.map((entry: MemoryEntry) => [entry.kind, entry.text])).toEqual([
    ["decision", "prefers pnpm"],
    ["fact", "the user's shell is fish"],
  ]);
  expect(JSON.parse(readFileSync(paths.globalMemory(), "utf8")).entries.length).toBe(2);
  await shiro(project, "memory", "add", "fact", "pnpm workspaces hold the packages");
  expect((await shiro(project, "memory", "forget", "pnpm")).stdout).toBe("Forgot 1 memory.\n");
  expect(withoutIds(await shiro(project, "memory", "list", "--global")).stdout).toBe(
    "(decision, global) prefers pnpm\n(fact, global) the user's shell is fish\n",
  );
  expect(JSON.parse((await shiro(project, "memory", "forget", "PNPM", "--global", "--json")).stdout)).toEqual({ removed: 1 });
  expect(withoutIds(await shiro(project, "memory", "list", "--global")).stdout).toBe("(fact, global) the user's shell is fish\n");
});

test("list --all shows both stores newest first, marking the global notes; --json tags each with its scope", async () => {
  expect(withoutIds(await shiro(project, "memory", "list", "--all")).stdout).toBe("nothing remembered about this project or globally yet\n");
  const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();
  const note = (id: string, text: string, minute: number, hits = 0): MemoryEntry => ({ id, kind: "fact", text, createdAt: at(minute), hits });
  writeJsonAtomic(paths.projectMemory(project), { version: 1, project, entries: [note("p1", "project old", 1), note("p3", "project new", 3, 2)] });
  writeJsonAtomic(paths.globalMemory(), { version: 1, entries: [note("g2", "global middle", 2)] });
  expect(withoutIds(await shiro(project, "memory", "list", "--all"))).toEqual({
    code: 0,
    stdout: "(fact) project new  [recalled 2x]\n(fact, global) global middle\n(fact) project old\n",
    stderr: "",
  });
  expect(JSON.parse((await shiro(project, "memory", "list", "--all", "--json")).stdout)).toEqual([
    { ...note("p3", "project new", 3, 2), scope: "project" },
    { ...note("g2", "global middle", 2), scope: "global" },
    { ...note("p1", "project old", 1), scope: "project" },
  ]);
  expect(await shiro(project, "memory", "list", "--all", "--global")).toEqual({
    code: 2,
    stdout: "",
    stderr: "shiro: use --all or --scope/--global, not both (see shiro --help)\n",
  });
});

test("bad input is a one-line error", async () => {
  expect(await shiro(project, "memory", "add", "opinion", "x")).toEqual({
    code: 2,
    stdout: "",
    stderr: 'shiro: unknown memory kind "opinion". Available: fact, decision, gotcha, command (see shiro --help)\n',
  });
  expect(await shiro(project, "memory", "add", "fact", "  ")).toEqual({ code: 1, stdout: "", stderr: "shiro: memory text is empty\n" });
});

test("compact on a small store needs no model and says why it did nothing", async () => {
  await shiro(project, "memory", "add", "fact", "one note");
  expect(await shiro(project, "memory", "compact")).toEqual({
    code: 0,
    stdout: "memory left as is: 1 entries, compaction starts past 60\n",
    stderr: "",
  });
  expect(await shiro(project, "memory", "compact", "--global")).toEqual({
    code: 0,
    stdout: "memory left as is: 0 entries, compaction starts past 60\n",
    stderr: "",
  });
});

describe("shiro memory compact against the fake provider", () => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await startFakeProvider({ apiKey: "sk-test" });
  });
  afterEach(async () => {
    await fake.stop();
  });

  function seed(): { recalled: MemoryEntry[]; unused: MemoryEntry[] } {
    const entries: MemoryEntry[] = Array.from({ length: 70 }, (_, i) => ({
      id: `0190${String(i).padStart(4, "0")}-0000-7000-8000-000000000000`,
      kind: "fact",
      text: `note ${i}`,
      createdAt: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
      hits: i < 10 ? 1 : 0,
    }));
    writeJsonAtomic(paths.projectMemory(project), { version: 1, project, entries });
    return { recalled: entries.slice(0, 10), unused: entries.slice(10) };
  }

  const modelEnv = () => ({ SHIRO_PROVIDER: "custom-openai", SHIRO_BASE_URL: fake.baseURL, SHIRO_MODEL: "fake-model", SHIRO_API_KEY: "sk-test" });

  test("merges the never-recalled notes in one request without tools", async () => {
    const { recalled, unused } = seed();
    fake.script({ text: ["[fact] notes 10 to 69 count upwards\n", "[command] count with seq 10 69"] });
    expect(await shiro(project, "memory", "compact", { env: modelEnv() })).toEqual({ code: 0, stdout: "memory compacted: 70 entries into 12\n", stderr: "" });
    expect(fake.violations).toEqual([]);
    expect(fake.requests.length).toBe(1);
    const body = fake.requests[0]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.messages.at(-1)).toEqual({
      role: "user",
      content: [`Notes to merge (60):`, "<notes>", ...unused.map((entry) => `[fact] ${entry.text}`), "</notes>"].join("\n"),
    });
    const entries: MemoryEntry[] = JSON.parse(readFileSync(paths.projectMemory(project), "utf8")).entries;
    expect(entries.slice(0, 10)).toEqual(recalled);
    expect(entries.slice(10).map((entry) => `${entry.kind}: ${entry.text}`)).toEqual(["fact: notes 10 to 69 count upwards", "command: count with seq 10 69"]);
  });

  test("a failing model call is a one-line error and the file is left byte for byte", async () => {
    seed();
    const before = readFileSync(paths.projectMemory(project));
    fake.script({ error: { status: 400, message: "model not allowed" } });
    const result = await shiro(project, "memory", "compact", { env: modelEnv() });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n").length).toBe(2);
    expect(result.stderr).toContain("model not allowed");
    expect(readFileSync(paths.projectMemory(project)).equals(before)).toBe(true);
  });
});
