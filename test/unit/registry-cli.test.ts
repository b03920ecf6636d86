/** `shiro registry …` as a user runs it: a subprocess, config `registryUrl` on the fake registry, a temporary SHIRO_HOME. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeRegistry, type FakeRegistry } from "../fakes/registry.ts";

const SHIRO = join(import.meta.dir, "..", "..", "cmd", "shiro.ts");
const SKILL = "---\nname: review-plus\ndescription: a stricter code review\n---\nRead every changed line.\nCheck the tests.\n";
const MANIFEST = {
  name: "lint",
  description: "refuses lint --fix",
  deny: [{ tools: ["bash"], commandPattern: "lint\\s+--fix", reason: "run the fixer yourself" }],
};

let home: string;
let fake: FakeRegistry;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "shiro-registry-cli-"));
  fake = await startFakeRegistry();
  const url = fake.serveIndex({
    skills: [
      { name: "review-plus", description: "a stricter code review", url: fake.url("/review-plus.md"), author: "ann" },
      { name: "lint", description: "Lint the code the way this team likes it, before every commit and push", url: fake.url("/lint.md") },
    ],
    plugins: [{ name: "lint", description: "refuses lint --fix", url: fake.url("/lint.json") }],
  });
  fake.serve("/review-plus.md", { body: SKILL });
  fake.serve("/lint.json", { json: MANIFEST });
  mkdirSync(join(home, ".shiro-neko"), { recursive: true });
  writeFileSync(join(home, ".shiro-neko", "config.json"), JSON.stringify({ registryUrl: url }));
});
afterEach(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
});

async function shiro(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn({
    cmd: [process.execPath, SHIRO, "registry", ...args],
    cwd: home,
    stdin: "ignore",
    env: { ...process.env, SHIRO_HOME: home, NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 25_000,
    killSignal: "SIGKILL",
  });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

const registryFile = (...parts: string[]) => join(home, ".shiro-neko", "registry", ...parts);

test("list, search and their JSON", async () => {
  const rows = [
    "S  review-plus  a stricter code review",
    "S  lint         Lint the code the way this team likes it, before every co…",
    "P  lint         refuses lint --fix",
  ];
  expect(await shiro()).toEqual({ code: 0, stdout: [...rows, "", "3 of 3 available", ""].join("\n"), stderr: "" });
  expect(await shiro("list")).toEqual(await shiro());
  expect(await shiro("search", "LINT")).toEqual({
    code: 0,
    stdout: ["S  lint  Lint the code the way this team likes it, before every co…", "P  lint  refuses lint --fix", "", "2 of 3 available", ""].join("\n"),
    stderr: "",
  });
  expect(await shiro("search", "nothing-like-it")).toEqual({ code: 0, stdout: "0 of 3 available\n", stderr: "" });
  const json = await shiro("search", "review", "--json");
  expect([json.code, json.stderr]).toEqual([0, ""]);
  expect(JSON.parse(json.stdout)).toEqual([
    { kind: "skill", name: "review-plus", description: "a stricter code review", url: fake.url("/review-plus.md"), author: "ann", installed: false },
  ]);
  expect(JSON.parse((await shiro("--json")).stdout).map((item: { kind: string; name: string }) => `${item.kind}:${item.name}`)).toEqual([
    "skill:review-plus",
    "skill:lint",
    "plugin:lint",
  ]);
});

test("add without --yes and without a terminal refuses before fetching anything", async () => {
  expect(await shiro("add", "review-plus")).toEqual({
    code: 1,
    stdout: "",
    stderr: 'shiro: not installing "review-plus" without a confirmation: pass --yes to install without asking\n',
  });
  expect(fake.requests).toEqual([]);
  expect(existsSync(registryFile())).toBe(false);
});

test("add --yes installs a skill and a plugin; installed lists them; remove deletes them", async () => {
  const skillPath = registryFile("skills", "review-plus.md");
  expect(await shiro("add", "review-plus", "--yes")).toEqual({
    code: 0,
    stdout: [
      `skill review-plus from ${fake.url("/review-plus.md")}`,
      ...SKILL.trimEnd().split("\n"),
      "",
      "A skill is instructions the model will follow as if you wrote them: read it before you install it.",
      `installed skill review-plus to ${skillPath}`,
      "new sessions load it; a running one loads it with /reload",
      "",
    ].join("\n"),
    stderr: "",
  });
  expect(readFileSync(skillPath, "utf8")).toBe(SKILL);
  expect(fake.requests.map((request) => request.path)).toEqual(["/index.json", "/review-plus.md"]);

  const pluginPath = registryFile("plugins", "lint.json");
  expect(await shiro("add", "plugin:lint", "--yes")).toEqual({
    code: 0,
    stdout: [
      `plugin lint from ${fake.url("/lint.json")}`,
      "refuses lint --fix",
      "- denies bash: lint\\s+--fix",
      "",
      "A plugin runs no code: it only refuses the tool calls listed above.",
      `installed plugin lint to ${pluginPath}`,
      "new sessions load it; a running one loads it with /reload",
      "",
    ].join("\n"),
    stderr: "",
  });
  expect(readFileSync(pluginPath, "utf8")).toBe(`${JSON.stringify(MANIFEST, null, 2)}\n`);

  expect(await shiro()).toEqual({
    code: 0,
    stdout: [
      "S  review-plus  a stricter code review                                      installed",
      "S  lint         Lint the code the way this team likes it, before every co…",
      "P  lint         refuses lint --fix                                          installed",
      "",
      "3 of 3 available",
      "",
    ].join("\n"),
    stderr: "",
  });
  expect(await shiro("installed")).toEqual({
    code: 0,
    stdout: "S  review-plus  a stricter code review\nP  lint         refuses lint --fix\n\n2 from the registry\n",
    stderr: "",
  });
  expect(JSON.parse((await shiro("installed", "--json")).stdout)).toEqual([
    { kind: "skill", name: "review-plus", description: "a stricter code review", path: skillPath },
    { kind: "plugin", name: "lint", description: "refuses lint --fix", path: pluginPath },
  ]);

  expect(await shiro("remove", "review-plus")).toEqual({
    code: 0,
    stdout: "removed skill review-plus\nnew sessions go without it; a running one drops it with /reload\n",
    stderr: "",
  });
  expect(await shiro("remove", "lint")).toEqual({
    code: 0,
    stdout: "removed plugin lint\nnew sessions go without it; a running one drops it with /reload\n",
    stderr: "",
  });
  expect([existsSync(skillPath), existsSync(pluginPath)]).toEqual([false, false]);
  expect(await shiro("installed")).toEqual({ code: 0, stdout: "nothing installed yet\n", stderr: "" });
  expect(await shiro("installed", "--json")).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
});

test("refusals are one line on stderr with exit 1", async () => {
  expect(await shiro("add", "lint", "--yes")).toEqual({
    code: 1,
    stdout: "",
    stderr: 'shiro: "lint" is both a skill and a plugin. Use shiro registry add skill:lint or shiro registry add plugin:lint\n',
  });
  expect(await shiro("add", "nope", "--yes")).toEqual({
    code: 1,
    stdout: "",
    stderr: 'shiro: no registry entry named "nope". Try shiro registry search nope\n',
  });
  expect(await shiro("add", "skill:lint", "--yes")).toEqual({ code: 1, stdout: "", stderr: `shiro: ${fake.url("/lint.md")} returned 404 Not Found\n` });
  expect(await shiro("remove", "../config")).toEqual({ code: 1, stdout: "", stderr: 'shiro: "../config" is not a valid entry name\n' });
  expect(await shiro("remove", "review-plus")).toEqual({ code: 1, stdout: "", stderr: 'shiro: nothing installed under the name "review-plus"\n' });
  fake.serve("/index.json", { body: "not json" });
  expect(await shiro()).toEqual({ code: 1, stdout: "", stderr: "shiro: the registry index is not valid JSON\n" });
  expect(existsSync(registryFile())).toBe(false);
});
