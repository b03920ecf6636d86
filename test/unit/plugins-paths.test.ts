import { describe, expect, test } from "bun:test";
import { createProtectPlugin, protectReason } from "../../plugins/protect.ts";
import { createSecretsPlugin, secretReason } from "../../plugins/secrets.ts";
import { parsePatch } from "../../lib/tools/patch-run.ts";
import { callSubjects } from "../../lib/approval/rules.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { patchPaths, pathSegments } from "../../lib/approval/write-paths.ts";

const TOOLS = new Map(builtinTools({ complete: async () => "m" }).map((tool) => [tool.name, tool]));
/** What the gate hands a guard: the tool's declared effect and its normalised paths. */
const callInfo = (toolName: string, input: unknown, cwd = "/ws") => {
  const tool = TOOLS.get(toolName);
  return { toolName, input, cwd, effect: tool?.effect, paths: callSubjects(tool, input, cwd).paths };
};

describe("write paths", () => {
  test("patch markers name every added, updated, moved and deleted path", () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: src/new.ts",
      "+export const x = 1;",
      "*** Update File: src/old.ts\r",
      "*** Move to: src/renamed.ts",
      "-a",
      "+b",
      "*** Delete File: .env",
      "*** End Patch",
    ].join("\n");
    expect(patchPaths(patch)).toEqual(["src/new.ts", "src/old.ts", "src/renamed.ts", ".env"]);
  });

  test("a patch whose lines break at a lone \\r names the paths the patch parser acts on", async () => {
    const patch = "*** Begin Patch\r*** Add File: .env\r+TOKEN=1\r*** Update File: a.ts\r*** Move to: dist/a.ts\r-x\r+y\r*** End Patch\r";
    const parsed = parsePatch(patch).flatMap((op) => (op.kind === "update" && op.moveTo ? [op.path, op.moveTo] : [op.path]));
    expect(parsed).toEqual([".env", "a.ts", "dist/a.ts"]);
    expect(patchPaths(patch)).toEqual(parsed);
    expect(await createSecretsPlugin().beforeToolCall!(callInfo("apply_patch", { patch }))).toBe(
      "refusing to write .env (an env file). Tell the user what to put there and let them write it.",
    );
    const moveOnly = "*** Update File: a.ts\r*** Move to: dist/a.ts\r-x\r+y";
    expect(await createProtectPlugin().beforeToolCall!(callInfo("apply_patch", { patch: moveOnly }))).toStartWith(
      "refusing to write dist/a.ts (generated build output)",
    );
  });

  test("each write tool declares its paths, read from raw input", () => {
    const paths = (name: string, input: unknown) => TOOLS.get(name)!.paths!(input, "/ws");
    expect(paths("write_file", { path: "a.ts", content: "" })).toEqual(["a.ts"]);
    expect(paths("edit_file", { path: "a.ts" })).toEqual(["a.ts"]);
    expect(paths("multi_edit", { path: "a.ts", edits: [] })).toEqual(["a.ts"]);
    expect(paths("delete_file", { path: "a.ts" })).toEqual(["a.ts"]);
    expect(paths("move_file", { from: "a.ts", to: "b.ts" })).toEqual(["a.ts", "b.ts"]);
    expect(paths("apply_patch", { patch: "*** Delete File: x" })).toEqual(["x"]);
    expect(paths("write_file", { path: 3 })).toEqual([]);
    expect(paths("write_file", "a.ts")).toEqual([]);
    expect(paths("move_file", { from: "a.ts" })).toEqual(["a.ts"]);
  });

  test("segments are normalised and seen from the workspace", () => {
    expect(pathSegments("src\\dist\\a.js")).toEqual(["src", "dist", "a.js"]);
    expect(pathSegments("./dist/../src//a.ts")).toEqual(["src", "a.ts"]);
    expect(pathSegments("/home/u/build/ws/src/a.ts", "/home/u/build/ws")).toEqual(["src", "a.ts"]);
    expect(pathSegments("/etc/dist/a", "/home/u/ws")).toEqual(["etc", "dist", "a"]);
  });
});

describe("secrets plugin", () => {
  const key = "a private key or keystore";
  const pm = "a package-manager or netrc credential file";
  const blocked: [string, string][] = [
    [".env", "an env file"],
    ["config/.env.local", "an env file"],
    [".ENV", "an env file"],
    ["app\\.env.production", "an env file"],
    ["certs/server.pem", key],
    ["tls/a.key", key],
    ["store.p12", key],
    ["x.pfx", key],
    ["a.jks", key],
    ["release.keystore", key],
    ["id_rsa", "an SSH private key"],
    ["id_ecdsa", "an SSH private key"],
    [".npmrc", pm],
    [".pypirc", pm],
    ["home/.netrc", pm],
    [".pgpass", pm],
    ["credentials.json", "a credentials file"],
    ["config/secrets.yaml", "a credentials file"],
    ["secret.toml", "a credentials file"],
    ["deploy/credentials.ini", "a credentials file"],
    ["secrets.yml", "a credentials file"],
    [".aws/config", "a cloud or cluster credential file"],
    ["home/.ssh/authorized_keys", "a cloud or cluster credential file"],
    ["x/.gnupg/pubring.kbx", "a cloud or cluster credential file"],
  ];
  const passing = [
    ".env.example",
    "src/env.ts",
    "environment.md",
    "docs/keys.md",
    "credentials.md",
    "secrets/readme.md",
    "id_rsa_notes.txt",
    "keyboard.ts",
    ".envrc.md",
    "keys/id_ed25519.pub",
    "home/.ssh/known_hosts",
  ];

  test("refuses each credential path and passes look-alikes", () => {
    for (const [path, why] of blocked) expect([path, secretReason(path)]).toEqual([path, why]);
    for (const path of passing) expect([path, secretReason(path)]).toEqual([path, undefined]);
  });

  test("checks every path of every write tool, and nothing else", async () => {
    const plugin = createSecretsPlugin();
    const check = (toolName: string, input: unknown) => plugin.beforeToolCall!(callInfo(toolName, input));
    const refusal = (path: string, why: string) => `refusing to write ${path} (${why}). Tell the user what to put there and let them write it.`;
    expect(await check("write_file", { path: ".env", content: "A=1" })).toBe(refusal(".env", "an env file"));
    expect(await check("write_file", { path: "./x/../.env", content: "A=1" })).toBe(refusal(".env", "an env file"));
    expect(await check("move_file", { from: "notes.txt", to: "deploy/id_rsa" })).toBe(refusal("deploy/id_rsa", "an SSH private key"));
    expect(await check("apply_patch", { patch: "*** Update File: a.ts\n*** Move to: .npmrc\n-a\n+b" })).toBe(refusal(".npmrc", pm));
    expect(await check("delete_file", { path: "certs/a.pem" })).toBe(refusal("certs/a.pem", key));
    expect(await check("edit_file", { path: "src/a.ts" })).toBeUndefined();
    expect(await check("read_file", { path: ".env" })).toBeUndefined();
    expect(await check("bash", { command: "cat > .env" })).toBeUndefined();
  });
});

describe("protect plugin", () => {
  const blocked: [string, string][] = [
    [".git/config", "git's own object store"],
    ["sub/.git/hooks/pre-commit", "git's own object store"],
    ...[
      "bun.lock",
      "bun.lockb",
      "packages/a/package-lock.json",
      "pnpm-lock.yaml",
      "yarn.lock",
      "Cargo.lock",
      "poetry.lock",
      "uv.lock",
      "composer.lock",
      "go.sum",
      "Gemfile.lock",
    ].map((path) => [path, "a lockfile the package manager owns"] as [string, string]),
    ["node_modules/x/index.js", "an installed dependency"],
    ["vendor/lib.go", "a vendored or build directory"],
    ["target/debug/app", "a vendored or build directory"],
    ["crates/x/target/release/app", "a vendored or build directory"],
    ...["dist/app.js", "build/out.o", "out/x.html", ".next/x", ".nuxt/x", ".svelte-kit/x", "coverage/lcov.info", "src\\dist\\a.js", "/ws/dist/a.js"].map(
      (path) => [path, "generated build output"] as [string, string],
    ),
    ...[".venv/bin/python", ".tox/x", ".mypy_cache/x", ".pytest_cache/x", ".ruff_cache/x", ".turbo/x", ".parcel-cache/x"].map(
      (path) => [path, "a tool cache"] as [string, string],
    ),
  ];
  const passing = [
    "docs/dist-layout.md",
    "src/build-info.ts",
    ".gitignore",
    ".github/workflows/ci.yml",
    "target/notes.md",
    "distribution/x",
    "src/vendor.ts",
    "bun.lock.md",
    "Dist/app.js",
    "dist/../src/a.ts",
    "/home/u/build/ws/src/a.ts",
  ];

  test("refuses tool-owned paths by whole segments and passes the rest", () => {
    for (const [path, why] of blocked) expect([path, protectReason(path, "/ws")]).toEqual([path, why]);
    for (const path of passing) expect([path, protectReason(path, "/home/u/build/ws")]).toEqual([path, undefined]);
  });

  test("checks every path of every write tool", async () => {
    const plugin = createProtectPlugin();
    const check = (toolName: string, input: unknown) => plugin.beforeToolCall!(callInfo(toolName, input));
    expect(await check("edit_file", { path: "bun.lock" })).toBe(
      "refusing to write bun.lock (a lockfile the package manager owns). Regenerate it with the tool that owns it rather than editing it.",
    );
    expect(await check("move_file", { from: "dist/a.js", to: "src/a.js" })).toBe(
      "refusing to write dist/a.js (generated build output). Regenerate it with the tool that owns it rather than editing it.",
    );
    expect(await check("apply_patch", { patch: "*** Add File: docs/dist-layout.md\n+x" })).toBeUndefined();
    expect(await check("read_file", { path: "node_modules/x/index.js" })).toBeUndefined();
  });
});
