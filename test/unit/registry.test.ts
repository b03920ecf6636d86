/** lib/extensions/registry/registry.ts against the fake registry on 127.0.0.1, with a temporary SHIRO_HOME. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../lib/platform/errors.ts";
import { stateDir } from "../../lib/platform/paths.ts";
import { compileInstalledPlugin, createPluginHost } from "../../lib/extensions/plugin-host.ts";
import {
  DEFAULT_REGISTRY_URL,
  commitInstall,
  fetchRegistryIndex,
  findRegistryEntry,
  listInstalled,
  loadInstalledPlugins,
  removeInstalled,
  resolveRegistryUrl,
  searchRegistry,
  stageInstall,
} from "../../lib/extensions/registry/registry.ts";
import { type RegistryEntry } from "../../lib/extensions/registry/schema.ts";
import { renderInstalledList, renderRegistryList } from "../../lib/ui/registry-view.ts";
import { loadSkills } from "../../lib/skills/skills.ts";
import { startFakeRegistry, type FakeRegistry } from "../fakes/registry.ts";

const SKILL_TEXT = [
  "---",
  "name: review-plus",
  "description: a stricter code review",
  "---",
  "",
  ...Array.from({ length: 18 }, (_, i) => `Step ${i + 1}: check the thing.`),
  "",
].join("\n");

const MANIFEST = {
  name: "no-migrations",
  description: "keeps applied migrations read-only",
  appendix: "Add a new migration instead of editing an old one.",
  homepage: "https://example.com/ignored",
  deny: [
    { tools: ["write_file", "edit_file"], pathPattern: "^migrations/", reason: "applied migrations are append-only", extra: 1 },
    { tools: ["bash"], commandPattern: "terraform\\s+apply", reason: "apply infrastructure changes by hand" },
  ],
};

let scratch: string;
let previousHome: string | undefined;
let fake: FakeRegistry;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "shiro-registry-"));
  previousHome = process.env.SHIRO_HOME;
});
afterAll(() => {
  if (previousHome === undefined) delete process.env.SHIRO_HOME;
  else process.env.SHIRO_HOME = previousHome;
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(async () => {
  process.env.SHIRO_HOME = mkdtempSync(join(scratch, "home-"));
  fake = await startFakeRegistry();
});
afterEach(() => fake.close());

const entry = (kind: RegistryEntry["kind"], name: string, url: string, description = `the ${name} ${kind}`): RegistryEntry => ({
  kind,
  name,
  description,
  url,
});

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("the index", () => {
  test("entries come back skills first, in index order, authors kept", async () => {
    const url = fake.serveIndex({
      plugins: [{ name: "no-migrations", description: "keeps migrations read-only", url: fake.url("/p.json") }],
      skills: [
        { name: "review-plus", description: "a stricter review", url: "https://example.com/review-plus.md", author: "ann" },
        { name: "a1", description: "short", url: fake.url("/a1.md"), unknown: true },
      ],
    });
    expect(await fetchRegistryIndex(url)).toEqual({
      url,
      entries: [
        { kind: "skill", name: "review-plus", description: "a stricter review", url: "https://example.com/review-plus.md", author: "ann" },
        { kind: "skill", name: "a1", description: "short", url: fake.url("/a1.md") },
        { kind: "plugin", name: "no-migrations", description: "keeps migrations read-only", url: fake.url("/p.json") },
      ],
    });
    expect(fake.requests).toEqual([{ method: "GET", path: "/index.json" }]);
  });

  test("an empty object is an empty index", async () => {
    expect((await fetchRegistryIndex(fake.serveIndex({}))).entries).toEqual([]);
  });

  test("a second entry of the same kind and name is dropped; the same name as the other kind is kept", async () => {
    const url = fake.serveIndex({
      skills: [
        { name: "lint", description: "first", url: "https://a.example/lint.md" },
        { name: "lint", description: "second", url: "https://b.example/lint.md" },
      ],
      plugins: [{ name: "lint", description: "the plugin", url: "https://a.example/lint.json" }],
    });
    expect((await fetchRegistryIndex(url)).entries).toEqual([
      { kind: "skill", name: "lint", description: "first", url: "https://a.example/lint.md" },
      { kind: "plugin", name: "lint", description: "the plugin", url: "https://a.example/lint.json" },
    ]);
  });

  const good = { name: "ok", description: "fine", url: "https://example.com/ok.md" };
  const cases: Array<[string, unknown, string]> = [
    ["not JSON", '{"skills": [', "the registry index is not valid JSON"],
    ["an array", [], "the registry index is malformed: must be an object"],
    ["null", null, "the registry index is malformed: must be an object"],
    ["an entry that is an array", { skills: [[]] }, 'the registry index is malformed: "skills[0]" must be an object'],
    ["skills not an array", { skills: {} }, 'the registry index is malformed: "skills" must be an array'],
    [
      "an upper-case name",
      { skills: [{ ...good, name: "Lint" }] },
      'the registry index is malformed: "skills[0].name" lowercase letters, digits, and dashes only',
    ],
    [
      "a name starting with a dash",
      { skills: [good, { ...good, name: "-x" }] },
      'the registry index is malformed: "skills[1].name" lowercase letters, digits, and dashes only',
    ],
    [
      "a 41-character name",
      { plugins: [{ ...good, name: "a".repeat(41) }] },
      'the registry index is malformed: "plugins[0].name" lowercase letters, digits, and dashes only',
    ],
    ["an empty name", { skills: [{ ...good, name: "" }] }, 'the registry index is malformed: "skills[0].name" lowercase letters, digits, and dashes only'],
    ["no url", { skills: [{ name: "ok", description: "fine" }] }, 'the registry index is malformed: "skills[0].url" is required'],
    ["an empty description", { skills: [{ ...good, description: "" }] }, 'the registry index is malformed: "skills[0].description" must not be empty'],
    [
      "a 301-character description",
      { skills: [{ ...good, description: "d".repeat(301) }] },
      'the registry index is malformed: "skills[0].description" must be at most 300 characters',
    ],
    [
      "a plain-http url",
      { plugins: [{ ...good, url: "http://example.com/ok.json" }] },
      'the registry index is malformed: "plugins[0].url" must be an https URL',
    ],
    ["a non-URL url", { plugins: [{ ...good, url: "ok.json" }] }, 'the registry index is malformed: "plugins[0].url" must be an https URL'],
    [
      "an 81-character author",
      { skills: [{ ...good, author: "a".repeat(81) }] },
      'the registry index is malformed: "skills[0].author" must be at most 80 characters',
    ],
    [
      "501 skills",
      { skills: Array.from({ length: 501 }, (_, i) => ({ ...good, name: `s${i}` })) },
      'the registry index is malformed: "skills" must have at most 500 entries',
    ],
  ];
  for (const [what, index, message] of cases) {
    test(`refuses ${what}`, async () => {
      fake.serve("/index.json", typeof index === "string" ? { body: index } : { json: index });
      expect(await failure(fetchRegistryIndex(fake.url("/index.json")))).toBe(message);
    });
  }

  test("the limits themselves pass: 40-character names, 300-character descriptions, 80-character authors, 500 entries", async () => {
    const skills = Array.from({ length: 500 }, (_, i) => ({ ...good, name: `${i}`.padEnd(40, "-") }));
    const url = fake.serveIndex({ skills, plugins: [{ ...good, description: "d".repeat(300), author: "a".repeat(80), url: "http://localhost:1/x.json" }] });
    const { entries } = await fetchRegistryIndex(url);
    expect(entries.length).toBe(501);
    expect(entries[500]).toEqual({ kind: "plugin", name: "ok", description: "d".repeat(300), author: "a".repeat(80), url: "http://localhost:1/x.json" });
  });

  test("an index of exactly 262144 bytes is read; one byte more is refused, by its length or while reading", async () => {
    const base = JSON.stringify({ skills: [good] });
    const exact = base + " ".repeat(262_144 - base.length);
    fake.serve("/index.json", { body: exact });
    expect((await fetchRegistryIndex(fake.url("/index.json"))).entries.length).toBe(1);
    fake.serve("/big.json", { body: `${exact} ` });
    expect(await failure(fetchRegistryIndex(fake.url("/big.json")))).toBe(`${fake.url("/big.json")} is 262145 bytes, over the 262144 byte limit`);
    fake.serve("/stream.json", { body: `${exact} `, chunked: true });
    expect(await failure(fetchRegistryIndex(fake.url("/stream.json")))).toBe(`${fake.url("/stream.json")} is over the 262144 byte limit`);
  });

  test("the URL comes from config registryUrl, else the default", () => {
    expect(resolveRegistryUrl({})).toBe(DEFAULT_REGISTRY_URL);
    expect(DEFAULT_REGISTRY_URL).toBe("https://raw.githubusercontent.com/zakirkun/shiro-neko-registry/main/index.json");
    expect(resolveRegistryUrl({ registryUrl: "https://example.com/i.json" })).toBe("https://example.com/i.json");
  });
});

describe("fetching", () => {
  test("a plain-http URL that is not local, or another scheme, is refused without a request", async () => {
    expect(await failure(fetchRegistryIndex("http://example.com/index.json"))).toBe("refusing a non-https URL: http://example.com/index.json");
    const ftp = fake.url("/index.json").replace("http:", "ftp:");
    expect(await failure(fetchRegistryIndex(ftp))).toBe(`refusing a non-https URL: ${ftp}`);
    const otherLoopback = fake.url("/index.json").replace("127.0.0.1", "127.0.0.2");
    expect(await failure(fetchRegistryIndex(otherLoopback))).toBe(`refusing a non-https URL: ${otherLoopback}`);
    expect(fake.requests).toEqual([]);
  });

  test("redirects are followed when each hop is allowed", async () => {
    fake.serveIndex({ skills: [{ name: "ok", description: "fine", url: "https://example.com/ok.md" }] });
    fake.serve("/old.json", { redirectTo: "/moved.json", status: 301 });
    fake.serve("/moved.json", { redirectTo: fake.url("/index.json") });
    expect((await fetchRegistryIndex(fake.url("/old.json"))).entries.map((item) => item.name)).toEqual(["ok"]);
    expect(fake.requests.map((request) => request.path)).toEqual(["/old.json", "/moved.json", "/index.json"]);
  });

  test("a redirect to a non-https URL is refused before it is followed", async () => {
    fake.serve("/index.json", { redirectTo: "http://example.com/index.json" });
    expect(await failure(fetchRegistryIndex(fake.url("/index.json")))).toBe("refusing a non-https URL: http://example.com/index.json");
    expect(fake.requests.map((request) => request.path)).toEqual(["/index.json"]);
  });

  test("a redirect loop stops after 5 redirects", async () => {
    fake.serve("/loop.json", { redirectTo: "/loop.json" });
    expect(await failure(fetchRegistryIndex(fake.url("/loop.json")))).toBe(`${fake.url("/loop.json")} redirected more than 5 times`);
    expect(fake.requests.length).toBe(6);
  });

  test("HTTP errors name the URL, the status and its text", async () => {
    expect(await failure(fetchRegistryIndex(fake.url("/missing.json")))).toBe(`${fake.url("/missing.json")} returned 404 Not Found`);
    fake.serve("/index.json", { status: 503, body: "down" });
    expect(await failure(fetchRegistryIndex(fake.url("/index.json")))).toBe(`${fake.url("/index.json")} returned 503 Service Unavailable`);
  });

  test("a server that does not answer in time is a refusal naming the deadline", async () => {
    fake.serve("/index.json", { stallMs: 5_000, json: {} });
    expect(await failure(fetchRegistryIndex(fake.url("/index.json"), { timeoutMs: 200 }))).toBe(`${fake.url("/index.json")} did not answer within 0.2 s`);
  });
});

describe("installing", () => {
  test("a skill: preview, then the file exactly as served, found by loadSkills as a registry skill", async () => {
    fake.serve("/review-plus.md", { body: SKILL_TEXT });
    const staged = await stageInstall(entry("skill", "review-plus", fake.url("/review-plus.md")));
    const lines = SKILL_TEXT.split("\n");
    expect(staged.preview).toEqual([`skill review-plus from ${fake.url("/review-plus.md")}`, ...lines.slice(0, 14), "... 9 more lines"]);
    expect(staged.warning).toBe("A skill is instructions the model will follow as if you wrote them: read it before you install it.");
    expect(existsSync(join(stateDir(), "registry"))).toBe(false);

    const path = commitInstall(staged);
    expect(path).toBe(join(stateDir(), "registry", "skills", "review-plus.md"));
    expect(readFileSync(path, "utf8")).toBe(SKILL_TEXT);
    const { skills } = loadSkills({ cwd: scratch, stateDir: stateDir(), includeBuiltin: false });
    expect(skills.map((skill) => [skill.name, skill.origin, skill.description, skill.path])).toEqual([
      ["review-plus", "registry", "a stricter code review", path],
    ]);
    expect(skills[0]!.body()).toBe(SKILL_TEXT.slice(SKILL_TEXT.indexOf("Step 1")).trim());
  });

  test("a short skill previews whole", async () => {
    const text = "---\nname: tiny\ndescription: small\n---\nDo it.\n";
    fake.serve("/tiny.md", { body: text });
    expect((await stageInstall(entry("skill", "tiny", fake.url("/tiny.md")))).preview).toEqual([
      `skill tiny from ${fake.url("/tiny.md")}`,
      "---",
      "name: tiny",
      "description: small",
      "---",
      "Do it.",
    ]);
  });

  test("a plugin: preview of its rules, the manifest re-serialised without unknown keys, and it blocks a matching call", async () => {
    fake.serve("/no-migrations.json", { json: MANIFEST });
    const staged = await stageInstall(entry("plugin", "no-migrations", fake.url("/no-migrations.json")));
    expect(staged.preview).toEqual([
      `plugin no-migrations from ${fake.url("/no-migrations.json")}`,
      "keeps applied migrations read-only",
      "- denies write_file, edit_file: ^migrations/",
      "- denies bash: terraform\\s+apply",
      "adds to the system prompt:",
      "  Add a new migration instead of editing an old one.",
    ]);
    expect(staged.warning).toBe("A plugin runs no code: it only refuses the tool calls listed above.");
    const path = commitInstall(staged);
    expect(path).toBe(join(stateDir(), "registry", "plugins", "no-migrations.json"));
    const stored = {
      name: "no-migrations",
      description: "keeps applied migrations read-only",
      appendix: "Add a new migration instead of editing an old one.",
      deny: [
        { tools: ["write_file", "edit_file"], pathPattern: "^migrations/", reason: "applied migrations are append-only" },
        { tools: ["bash"], commandPattern: "terraform\\s+apply", reason: "apply infrastructure changes by hand" },
      ],
    };
    expect(readFileSync(path, "utf8")).toBe(`${JSON.stringify(stored, null, 2)}\n`);

    const loaded = loadInstalledPlugins();
    expect(loaded).toEqual({ manifests: [stored], failures: [] });
    const plugin = compileInstalledPlugin(loaded.manifests[0]!);
    expect(plugin.beforeToolCall!({ toolName: "bash", input: { command: "TERRAFORM  apply -auto-approve" }, cwd: scratch })).toBe(
      "apply infrastructure changes by hand",
    );
    expect(plugin.beforeToolCall!({ toolName: "edit_file", input: { path: "migrations/001.sql" }, cwd: scratch, paths: ["migrations/001.sql"] })).toBe(
      "applied migrations are append-only",
    );
    expect(plugin.beforeToolCall!({ toolName: "read_file", input: { path: "migrations/001.sql" }, cwd: scratch })).toBeUndefined();
    const host = createPluginHost({ cwd: scratch, writeStderr: () => {}, enabled: [], builtins: {} });
    host.loadInstalled(loaded.manifests);
    expect(await host.checkToolCall({ toolName: "bash", input: { command: "terraform apply" }, cwd: scratch })).toBe(
      "Blocked by the no-migrations plugin: apply infrastructure changes by hand",
    );
  });

  test("installing again replaces the file", async () => {
    fake.serve("/tiny.md", { body: "---\nname: tiny\ndescription: small\n---\nOne.\n" });
    commitInstall(await stageInstall(entry("skill", "tiny", fake.url("/tiny.md"))));
    fake.serve("/tiny.md", { body: "---\nname: tiny\ndescription: small\n---\nTwo.\n" });
    const path = commitInstall(await stageInstall(entry("skill", "tiny", fake.url("/tiny.md"))));
    expect(readFileSync(path, "utf8")).toBe("---\nname: tiny\ndescription: small\n---\nTwo.\n");
    expect(readdirSync(join(stateDir(), "registry", "skills"))).toEqual(["tiny.md"]);
  });

  const manifest = (patch: Record<string, unknown>) => JSON.stringify({ ...MANIFEST, ...patch });
  const rule = { tools: ["bash"], commandPattern: "x", reason: "no" };
  const refusals: Array<[string, RegistryEntry["kind"], string, string]> = [
    [
      "a skill naming itself differently",
      "skill",
      "---\nname: other\ndescription: d\n---\nbody\n",
      'the skill calls itself "other" but the index calls it "wanted"',
    ],
    ["a skill without frontmatter", "skill", "# Just markdown\n", "that skill has no name/description frontmatter, so it cannot be loaded"],
    ["a skill without a description", "skill", "---\nname: wanted\n---\nbody\n", "that skill has no name/description frontmatter, so it cannot be loaded"],
    ["a manifest naming itself differently", "plugin", manifest({ name: "other" }), 'the manifest calls itself "other" but the index calls it "wanted"'],
    ["a manifest that is not JSON", "plugin", "{", "the plugin manifest is not valid JSON"],
    ["a manifest that is an array", "plugin", "[]", "the plugin manifest is malformed: must be an object"],
    ["a manifest without deny", "plugin", manifest({ deny: undefined }), 'the plugin manifest is malformed: "deny" is required'],
    ["a manifest with no rules", "plugin", manifest({ deny: [] }), 'the plugin manifest is malformed: "deny" must have at least one rule'],
    [
      "a rule without a pattern",
      "plugin",
      manifest({ deny: [{ tools: ["bash"], reason: "no" }] }),
      'the plugin manifest is malformed: "deny[0]" a deny rule needs pathPattern or commandPattern',
    ],
    [
      "a rule naming no tools",
      "plugin",
      manifest({ deny: [{ ...rule, tools: [] }] }),
      'the plugin manifest is malformed: "deny[0].tools" must name at least one tool',
    ],
    [
      "a 61-character tool name",
      "plugin",
      manifest({ deny: [{ ...rule, tools: ["t".repeat(61)] }] }),
      'the plugin manifest is malformed: "deny[0].tools[0]" must be at most 60 characters',
    ],
    [
      "a 201-character pattern",
      "plugin",
      manifest({ deny: [{ ...rule, commandPattern: "p".repeat(201) }] }),
      'the plugin manifest is malformed: "deny[0].commandPattern" must be at most 200 characters',
    ],
    ["51 rules", "plugin", manifest({ deny: Array.from({ length: 51 }, () => rule) }), 'the plugin manifest is malformed: "deny" must have at most 50 rules'],
    [
      "a 2001-character appendix",
      "plugin",
      manifest({ appendix: "a".repeat(2001) }),
      'the plugin manifest is malformed: "appendix" must be at most 2000 characters',
    ],
    [
      "a pattern that does not compile",
      "plugin",
      manifest({ name: "wanted", deny: [{ ...rule, commandPattern: "(unclosed" }] }),
      'invalid pattern "(unclosed": ',
    ],
  ];
  for (const [what, kind, body, message] of refusals) {
    test(`refuses ${what}`, async () => {
      fake.serve("/wanted", { body });
      const refused = await failure(stageInstall(entry(kind, "wanted", fake.url("/wanted"))));
      if (message.endsWith(": ")) expect(refused.startsWith(message) && refused.length > message.length).toBe(true);
      else expect(refused).toBe(message);
      expect(existsSync(join(stateDir(), "registry"))).toBe(false);
    });
  }

  test("an entry body over 65536 bytes is refused", async () => {
    fake.serve("/big.md", { body: `---\nname: big\ndescription: d\n---\n${"x".repeat(65_536)}` });
    expect(await failure(stageInstall(entry("skill", "big", fake.url("/big.md"))))).toBe(`${fake.url("/big.md")} is 65569 bytes, over the 65536 byte limit`);
  });
});

describe("names", () => {
  const entries = [
    entry("skill", "lint", "https://example.com/lint.md", "Lints the code"),
    entry("plugin", "lint", "https://example.com/lint.json", "refuses lint --fix"),
    entry("skill", "review-plus", "https://example.com/review.md", "a stricter review"),
  ];

  test("a bare name finds the one entry; a prefix picks the kind", () => {
    expect(findRegistryEntry(entries, "review-plus")).toBe(entries[2]!);
    expect(findRegistryEntry(entries, "skill:lint")).toBe(entries[0]!);
    expect(findRegistryEntry(entries, "plugin:lint")).toBe(entries[1]!);
  });

  test("an unknown name and an ambiguous one are refused with what to type next", () => {
    expect(thrown(() => findRegistryEntry(entries, "nope"))).toBe('no registry entry named "nope". Try shiro registry search nope');
    expect(thrown(() => findRegistryEntry(entries, "plugin:review-plus"))).toBe('no registry entry named "review-plus". Try shiro registry search review-plus');
    expect(thrown(() => findRegistryEntry(entries, "lint"))).toBe(
      '"lint" is both a skill and a plugin. Use shiro registry add skill:lint or shiro registry add plugin:lint',
    );
    expect(thrown(() => findRegistryEntry(entries, "lint", "/registry"))).toBe(
      '"lint" is both a skill and a plugin. Use /registry add skill:lint or /registry add plugin:lint',
    );
  });

  test("search matches name or description, case-insensitively", () => {
    expect(searchRegistry(entries, "LINT")).toEqual([entries[0]!, entries[1]!]);
    expect(searchRegistry(entries, "stricter")).toEqual([entries[2]!]);
    expect(searchRegistry(entries, "--FIX")).toEqual([entries[1]!]);
    expect(searchRegistry(entries, "zzz")).toEqual([]);
  });
});

describe("installed entries", () => {
  async function installBoth(): Promise<void> {
    fake.serve("/lint.md", { body: "---\nname: lint\ndescription: lints the code\n---\nRun the linter.\n" });
    fake.serve("/lint.json", { json: { ...MANIFEST, name: "lint", description: "refuses lint --fix" } });
    commitInstall(await stageInstall(entry("skill", "lint", fake.url("/lint.md"))));
    commitInstall(await stageInstall(entry("plugin", "lint", fake.url("/lint.json"))));
  }

  test("remove deletes one kind; a bare name installed as both is refused", async () => {
    await installBoth();
    expect(thrown(() => removeInstalled("lint"))).toBe(
      '"lint" is installed as both a skill and a plugin. Use shiro registry remove skill:lint or shiro registry remove plugin:lint',
    );
    const skillPath = join(stateDir(), "registry", "skills", "lint.md");
    expect(removeInstalled("skill:lint")).toEqual({ kind: "skill", name: "lint", path: skillPath });
    expect(existsSync(skillPath)).toBe(false);
    expect(removeInstalled("lint")).toEqual({ kind: "plugin", name: "lint", path: join(stateDir(), "registry", "plugins", "lint.json") });
    expect(listInstalled()).toEqual([]);
    expect(thrown(() => removeInstalled("lint"))).toBe('nothing installed under the name "lint"');
  });

  test("remove refuses names no entry could have, before touching the disk", () => {
    for (const name of ["../config", "Lint", "", "skill:", "a".repeat(41), "plugin:x/y"]) {
      const bare = name.replace(/^(skill|plugin):/, "");
      expect(thrown(() => removeInstalled(name))).toBe(`"${bare}" is not a valid entry name`);
    }
  });

  test("list and render: index rows with the installed flag, installed rows, the hints", async () => {
    await installBoth();
    const entries = [
      entry("skill", "lint", "https://example.com/lint.md", "lints the code"),
      entry("skill", "review-plus", "https://example.com/review.md", "A review that checks every changed line, its tests, its docs and its naming"),
      entry("plugin", "lint", "https://example.com/lint.json", "refuses lint --fix"),
    ];
    const installed = listInstalled();
    expect(renderRegistryList(entries, 3, installed)).toBe(
      [
        "S  lint         lints the code                                              installed",
        "S  review-plus  A review that checks every changed line, its tests, its d…",
        "P  lint         refuses lint --fix                                          installed",
        "",
        "3 of 3 available",
      ].join("\n"),
    );
    expect(renderRegistryList([], 3, installed)).toBe("0 of 3 available");
    expect(renderInstalledList(installed)).toBe(["S  lint  lints the code", "P  lint  refuses lint --fix", "", "2 from the registry"].join("\n"));
    expect(renderInstalledList([])).toBe("nothing installed yet");
  });

  test("a broken plugin file is reported and skipped; the rest still load", async () => {
    await installBoth();
    const dir = join(stateDir(), "registry", "plugins");
    writeFileSync(join(dir, "broken.json"), "{ nope");
    writeFileSync(join(dir, "renamed.json"), JSON.stringify({ ...MANIFEST, name: "other" }));
    writeFileSync(
      join(dir, "bad-pattern.json"),
      JSON.stringify({ ...MANIFEST, name: "bad-pattern", deny: [{ tools: ["bash"], commandPattern: "[", reason: "r" }] }),
    );
    writeFileSync(join(dir, "lint.json.123.1.tmp"), "partial");
    const { manifests, failures } = loadInstalledPlugins();
    expect(manifests.map((item) => item.name)).toEqual(["lint"]);
    expect(failures.map((item) => item.name)).toEqual(["bad-pattern", "broken", "renamed"]);
    expect(failures[0]!.error.startsWith('invalid pattern "[": ')).toBe(true);
    expect(failures.slice(1)).toEqual([
      { name: "broken", error: "the plugin manifest is not valid JSON" },
      { name: "renamed", error: 'the manifest calls itself "other" but its file is renamed.json' },
    ]);
    mkdirSync(join(stateDir(), "registry", "skills"), { recursive: true });
    writeFileSync(join(stateDir(), "registry", "skills", "plain.md"), "no frontmatter\n");
    expect(listInstalled().map((item) => [item.kind, item.name, item.problem ?? ""])).toEqual([
      ["skill", "lint", ""],
      ["skill", "plain", 'no frontmatter: the file must start with a "---" line'],
      ["plugin", "bad-pattern", failures[0]!.error],
      ["plugin", "broken", "the plugin manifest is not valid JSON"],
      ["plugin", "lint", ""],
      ["plugin", "renamed", 'the manifest calls itself "other" but its file is renamed.json'],
    ]);
  });

  test("with no registry folder nothing is installed", () => {
    expect(listInstalled()).toEqual([]);
    expect(loadInstalledPlugins()).toEqual({ manifests: [], failures: [] });
  });
});
