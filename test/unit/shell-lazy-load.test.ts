/**
 * The shell parser is loaded on the first bash call only: a plain answer, --version and a run
 * whose only tool is not bash never load mvdan-sh; a bash call does. Shiro runs from source under
 * a preload that records the loaded modules at exit (test/fixtures/record-modules.ts). The build
 * the binary is made from keeps mvdan-sh in a chunk that only a dynamic import() reaches.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFakeProvider, type FakeProvider, type FakeStep } from "../fakes/provider.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
let fake: FakeProvider;
let dir = "";

beforeAll(async () => {
  fake = await startFakeProvider();
  dir = mkdtempSync(join(tmpdir(), "shiro-lazy-"));
});
afterAll(async () => {
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

function _modulesLoaded(args: string[], steps: FakeStep[], match = "mvdan-sh", extraEnv: Record<string, string> = {}): Promise<string[]> {
  fake.reset();
  fake.script(...steps);
  const log = join(dir, `modules-${Math.random().toString(36).slice(2)}.json`);
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    SHIRO_HOME: dir,
    NO_COLOR: "1",
    RECORD_MODULES: log,
    RECORD_MATCH: match,
    SHIRO_BASE_URL: fake.baseURL,
    SHIRO_API_KEY: "k",
    SHIRO_PROTOCOL: "chat",
    SHIRO_PROVIDER: "openai",
    ...extraEnv,
  };
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["--preload", join(ROOT, "test/fixtures/record-modules.ts"), join(ROOT, "cmd/shiro.ts"), ...args], {
      cwd: dir,
      env,
      stdio: "ignore",
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`shiro ${args.join(" ")} exited ${code}`));
      else resolvePromise((JSON.parse(readFileSync(log, "utf8")) as string[]).map((path) => path.slice(path.indexOf(match))));
    });
  });
}

test("--version and a plain answer do not load the shell parser", async () => {
  expect(await _modulesLoaded(["--version"], [])).toEqual([]);
  expect(await _modulesLoaded(["-p", "hi", "--yolo"], [{ text: "hello" }])).toEqual([]);
  expect(fake.requests).toHaveLength(1);
  expect(await _modulesLoaded(["-p", "list", "--yolo"], [{ toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { text: "done" }])).toEqual([]);
}, 60_000);

test("a plain answer loads only the ranking its memory section is chosen by, not the search command or the recall tool's router; the first recall does", async () => {
  // The injected memory is ranked like recall (lib/find/recall-everything.ts over the transcript index).
  expect(await _modulesLoaded(["-p", "hi", "--yolo"], [{ text: "hello" }], "/lib/find/")).toEqual(
    expect.not.arrayContaining(["/lib/find/search.ts", "/lib/find/recall-transcripts.ts", "/lib/find/run-search.ts"]),
  );
  const recalled = await _modulesLoaded(
    ["-p", "what did we do", "--yolo"],
    [{ toolCalls: [{ name: "recall", input: { query: "parser", kinds: ["transcript"] } }] }, { text: "done" }],
    "/lib/find/",
  );
  expect(recalled).toContain("/lib/find/recall-transcripts.ts");
}, 60_000);

/**
 * What the built-in tools do when called, and what only that needs: a plain answer loads the
 * tools' declarations (lib/tools/<tool>.ts), never these; each loads at its tool's first call.
 */
const _TOOL_IMPLEMENTATIONS = [
  "lib/tools/fs-run.ts",
  "lib/tools/edit-run.ts",
  "lib/tools/patch-run.ts",
  "lib/tools/grep-run.ts",
  "lib/tools/git-run.ts",
  "lib/tools/web-run.ts",
  "lib/tools/bash-run.ts",
  "lib/tools/walk.ts",
  "lib/tools/process-tree.ts",
  "lib/tools/file-read.ts",
  "lib/tools/git-scope.ts",
  "lib/tools/net-guard.ts",
  "lib/tools/html-to-markdown.ts",
  "plugins/guard-rewind.ts",
];

test("a tool's implementation loads at its first call, and only that tool's", async () => {
  writeFileSync(join(dir, "listed.txt"), "x\n");
  const listed = await _modulesLoaded(["-p", "list", "--yolo"], [{ toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { text: "done" }], "/");
  const sources = listed.filter((path) => path.startsWith(ROOT + "/")).map((path) => path.slice(ROOT.length + 1));
  expect(_TOOL_IMPLEMENTATIONS.filter((module) => sources.includes(module))).toEqual(["lib/tools/fs-run.ts", "lib/tools/walk.ts", "lib/tools/file-read.ts"]);
  expect(listed.some((path) => path.includes("/node_modules/ignore/"))).toBe(true);
  const result = fake.requests[1]!.body.messages.at(-1);
  expect([result.role, result.content.split("\n").includes("listed.txt")]).toEqual(["tool", true]);
}, 30_000);

/** The modules of _TOOL_IMPLEMENTATIONS that importing `module` (a front end) loads. */
function _implementationsImportedBy(module: string): string[] {
  const log = join(dir, `imports-${Math.random().toString(36).slice(2)}.json`);
  const run = spawnSync(
    process.execPath,
    ["--preload", join(ROOT, "test/fixtures/record-modules.ts"), "-e", `await import(${JSON.stringify(join(ROOT, module))})`],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir, SHIRO_HOME: dir, RECORD_MODULES: log, RECORD_MATCH: ROOT },
      encoding: "utf8",
      timeout: 30_000,
    },
  );
  if (run.status !== 0) throw new Error(`importing ${module} failed:\n${run.stderr}`);
  const loaded = (JSON.parse(readFileSync(log, "utf8")) as string[]).map((path) => path.slice(ROOT.length + 1));
  return _TOOL_IMPLEMENTATIONS.filter((implementation) => loaded.includes(implementation));
}

test("the REPL and an ACP session load no file tool's implementation before an @ attachment needs it; the REPL's completer brings the walker", () => {
  expect(_implementationsImportedBy("lib/ui/acp/server.ts")).toEqual([]);
  expect(_implementationsImportedBy("lib/ui/repl.ts")).toEqual(["lib/tools/walk.ts"]);
}, 30_000);

/**
 * The start-up set of a plain answer, pinned: what `shiro -p hi` loads in an empty home. Adding to
 * it is a deliberate act (raise the ceiling and say why in docs/development.md, "Start-up"): a
 * heavy module that creeps back onto the path fails here. Packages are listed exactly; source
 * modules may not import, at their top, a Node builtin that loads Node's stream machinery,
 * node:crypto, node:os, node:child_process, node:fs/promises or node:module (each costs a compiled
 * binary up to milliseconds of its start, paid by every run: lib/platform/runtime.ts reaches the
 * ones the path needs on first use).
 */
const _START_UP_PACKAGES = ["@valibot/to-json-schema", "destr", "eventsource-parser", "ofetch", "stemmer", "ufo", "valibot"];
const _START_UP_CEILING = 252;
const _NEVER_AT_START_UP = [
  "lib/ui/repl.ts",
  "lib/ui/attachments.ts",
  "lib/extensions/registry/registry.ts",
  "lib/extensions/registry/schema.ts",
  "lib/extensions/mcp/hub.ts",
  "lib/agent/output-schema.ts",
  "lib/store/checkpoints.ts",
  "lib/find/search.ts",
  "lib/extensions/mcp/tools.ts",
  "cmd/_help.ts",
  "cmd/_run-citty.ts",
  "lib/extensions/hooks/hook-process.ts",
  "plugins/guard.ts",
  "plugins/guard-unreadable.ts",
  "lib/shell/read.ts",
  "lib/shell/read-only.ts",
  "lib/shell/peel.ts",
  "lib/shell/simple-commands.ts",
  "lib/store/checkpoint-git.ts",
  "lib/sandbox/explain.ts",
  ..._TOOL_IMPLEMENTATIONS,
];
const _HEAVY_BUILTIN =
  /^\s*import\s+(?!type\b)[^;]*?from\s+"node:(crypto|os|child_process|fs\/promises|module|net|tls|http|https|http2|zlib|readline|stream|stream\/promises|worker_threads|dns)"/m;

test("a plain answer loads only its start-up set: no package beyond the listed ones, no heavy builtin at a module's top, at most the ceiling", async () => {
  const loaded = (await _modulesLoaded(["-p", "hi"], [{ text: "hello" }], "/")).filter((path) => !path.startsWith(join(ROOT, "test") + "/"));
  const packages = [...new Set(loaded.filter((path) => path.includes("/node_modules/")).map(_packageOf))].sort();
  expect(packages).toEqual(_START_UP_PACKAGES);
  const sources = loaded.filter((path) => !path.includes("/node_modules/")).map((path) => path.slice(ROOT.length + 1));
  expect(_NEVER_AT_START_UP.filter((module) => sources.includes(module))).toEqual([]);
  expect(sources.filter((path) => path.endsWith(".ts") && _HEAVY_BUILTIN.test(readFileSync(join(ROOT, path), "utf8")))).toEqual([]);
  expect(loaded.length).toBeLessThanOrEqual(_START_UP_CEILING);
  expect(fake.requests).toHaveLength(1);
}, 30_000);

test("a plain answer asks for no Node builtin it does not use: not node:os for the home folder ($HOME is read), nor a spawn's or a file handle's", async () => {
  const asked = join(dir, "builtins.json");
  // No SHIRO_HOME: the state folder is found under the home folder, as for most users.
  await _modulesLoaded(["-p", "hi"], [{ text: "hello" }], "/", { RECORD_BUILTINS: asked, SHIRO_HOME: "" });
  expect(JSON.parse(readFileSync(asked, "utf8"))).toEqual([]);
  expect(fake.requests).toHaveLength(1);
}, 30_000);

test("the start-up checks see what they look for: a module that imports node:crypto at its top, and a package path", () => {
  expect(_HEAVY_BUILTIN.test('import { createHash } from "node:crypto";')).toBe(true);
  expect(_HEAVY_BUILTIN.test('import type { Readable } from "node:stream";')).toBe(false);
  for (const line of ['import { homedir } from "node:os";', 'import { spawnSync } from "node:child_process";', 'import { open } from "node:fs/promises";'])
    expect(_HEAVY_BUILTIN.test(line)).toBe(true);
  expect(_HEAVY_BUILTIN.test('import type { FileHandle } from "node:fs/promises";')).toBe(false);
  expect(_HEAVY_BUILTIN.test('import { readFileSync } from "node:fs";')).toBe(false);
  expect(_HEAVY_BUILTIN.test('  const { lookup } = await import("node:dns/promises");')).toBe(false);
  expect(_HEAVY_BUILTIN.test(readFileSync(join(ROOT, "lib/release/update.ts"), "utf8"))).toBe(true);
  expect(["/r/node_modules/@valibot/to-json-schema/dist/index.mjs", "/r/node_modules/ofetch/dist/index.mjs"].map(_packageOf)).toEqual([
    "@valibot/to-json-schema",
    "ofetch",
  ]);
});

function _packageOf(path: string): string {
  const parts = path.slice(path.lastIndexOf("/node_modules/") + "/node_modules/".length).split("/");
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

test("the first bash call loads it", async () => {
  const loaded = await _modulesLoaded(["-p", "run", "--yolo"], [{ toolCalls: [{ name: "bash", input: { command: "true" } }] }, { text: "done" }]);
  expect(loaded).toEqual(["mvdan-sh/index.js"]);
}, 30_000);

test("the build puts mvdan-sh in its own chunk, reached only by import()", () => {
  const out = join(dir, "split");
  const build = spawnSync(process.execPath, ["build", "--splitting", "--format=esm", "--target=bun", "--minify", join(ROOT, "cmd/shiro.ts"), "--outdir", out], {
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(build.status).toBe(0);
  const chunks = readdirSync(out).filter((name) => name.endsWith(".js"));
  // GopherJS stamps its Go version into the code it emits.
  const parser = chunks.filter((name) => readFileSync(join(out, name), "utf8").includes('"go1.17.'));
  expect(parser).toHaveLength(1);
  const importers = chunks.map((name) => [name, readFileSync(join(out, name), "utf8")] as const).filter(([, code]) => code.includes(`./${parser[0]}`));
  expect(importers.length).toBeGreaterThan(0);
  for (const [name, code] of importers) {
    expect([name, code.includes(`from"./${parser[0]}"`) || code.includes(`import"./${parser[0]}"`)]).toEqual([name, false]);
    expect([name, code.includes(`import("./${parser[0]}")`)]).toEqual([name, true]);
  }
}, 120_000);

test("--version and a headless answer load neither the Markdown renderer nor the highlighter; the REPL loads them on its first turn", async () => {
  expect(await _modulesLoaded(["--version"], [], "/markdansi/")).toEqual([]);
  expect(await _modulesLoaded(["-p", "# hi", "--yolo"], [{ text: "## hello\n\n**there**" }], "/markdansi/")).toEqual([]);
  expect(await _modulesLoaded(["-p", "# hi", "--yolo"], [{ text: "```ts\nconst a = 1;\n```" }], "/@speed-highlight/")).toEqual([]);
}, 60_000);

test("a plain answer and a read-only step load no checkpoint store; a turn's first write does", async () => {
  const store = ["/lib/store/checkpoints.ts", "/lib/store/checkpoint-capture.ts", "/lib/store/checkpoint-restore.ts"];
  expect(await _modulesLoaded(["-p", "hi", "--yolo"], [{ text: "hello" }], "/lib/store/")).toEqual(expect.not.arrayContaining(store.slice(0, 1)));
  const read = await _modulesLoaded(["-p", "list", "--yolo"], [{ toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { text: "done" }], "/lib/store/");
  for (const module of store) expect(read).not.toContain(module);
  const wrote = await _modulesLoaded(
    ["-p", "write", "--yolo"],
    [{ toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "x\n" } }] }, { text: "done" }],
    "/lib/store/",
  );
  expect(wrote).toEqual(expect.arrayContaining(["/lib/store/checkpoints.ts", "/lib/store/checkpoint-capture.ts"]));
}, 60_000);
