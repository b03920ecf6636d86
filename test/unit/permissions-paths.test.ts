/**
 * Path rules match what a path means, not how it is spelled: every spelling of `secrets/a.txt`
 * meets `"secrets/*": "deny"` in every tool that takes a path, through the gate and the tools'
 * own declarations.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGate, denyAll } from "../../lib/extensions/gate.ts";
import { defaultPermission, normalizeRulePath, parsePermissionRules } from "../../lib/approval/rules.ts";
import { createPluginHost } from "../../lib/extensions/plugin-host.ts";
import { builtinTools } from "../../lib/tools/index.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "shiro-rule-paths-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, "secrets", "sub"), { recursive: true });
mkdirSync(join(root, "x"), { recursive: true });
writeFileSync(join(root, "secrets", "a.txt"), "s\n");
symlinkSync("secrets", join(root, "alias"));

const TOOLS = builtinTools({ complete: async () => "m" });

/** Every spelling of secrets/a.txt the issue names: `./x`, `a/../x`, absolute, `//`, trailing `/`. */
const SPELLINGS = [
  "secrets/a.txt",
  "./secrets/a.txt",
  "x/../secrets/a.txt",
  "./x/.././secrets/a.txt",
  `${root}/secrets/a.txt`,
  "secrets//a.txt",
  ".//secrets///a.txt",
  "secrets/a.txt/",
  "secrets/./a.txt",
  `${root}//secrets/../secrets/a.txt`,
  "alias/a.txt",
];

/** The input of each path-taking tool that names `path`. */
const INPUTS: Record<string, (path: string) => unknown> = {
  read_file: (path) => ({ path }),
  read_many_files: (path) => ({ files: [{ path: "x/ok.txt" }, { path }] }),
  write_file: (path) => ({ path, content: "x" }),
  edit_file: (path) => ({ path, oldString: "a", newString: "b" }),
  multi_edit: (path) => ({ path, edits: [{ oldString: "a", newString: "b" }] }),
  apply_patch: (path) => ({ patch: `*** Begin Patch\n*** Update File: ${path}\n-a\n+b\n*** End Patch` }),
  move_file: (path) => ({ from: path, to: "x/moved.txt" }),
  delete_file: (path) => ({ path }),
  list_dir: (path) => ({ path }),
  git_diff: (path) => ({ path }),
  git_log: (path) => ({ path }),
  git_show: (path) => ({ ref: "HEAD", path }),
  git_blame: (path) => ({ path }),
};

describe("normalizeRulePath", () => {
  test("every spelling of one path is one subject; outside stays absolute", () => {
    expect(SPELLINGS.slice(0, -1).map((path) => normalizeRulePath(path, root))).toEqual(SPELLINGS.slice(0, -1).map(() => "secrets/a.txt"));
    expect(normalizeRulePath(".", root)).toBe(".");
    expect(normalizeRulePath("./", root)).toBe(".");
    expect(normalizeRulePath(root, root)).toBe(".");
    expect(normalizeRulePath("../out/x", root)).toBe(join(root, "..", "out", "x"));
  });
});

describe("path rules in every tool that takes a path", () => {
  test("the tools named here are exactly the built-ins that declare paths", () => {
    expect(
      TOOLS.filter((tool) => tool.paths && tool.name !== "grep")
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(Object.keys(INPUTS).sort());
  });

  for (const [name, input] of Object.entries(INPUTS)) {
    test(`${name}: "secrets/*": "deny" refuses ${SPELLINGS.length} spellings, also under --yolo`, async () => {
      const rules = parsePermissionRules({ [name]: { "*": "allow", "secrets/*": "deny" } }, defaultPermission(TOOLS));
      const gate = createGate({
        rules,
        plugins: createPluginHost({ cwd: root, writeStderr: () => {}, enabled: [] }),
        yolo: true,
        decide: denyAll,
        headless: true,
      });
      const tool = TOOLS.find((candidate) => candidate.name === name)!;
      const verdicts = await Promise.all(
        SPELLINGS.map(async (path, i) => {
          const result = await gate.check({ callId: `c${i}`, tool, name, input: input(path), cwd: root });
          return [path, result.allowed === false && result.by === "rule" ? result.reason : "let through"];
        }),
      );
      expect(verdicts).toEqual(SPELLINGS.map((path) => [path, `Refused by the permission rule ${name}: "secrets/*" = deny.`]));
      const fine = await gate.check({ callId: "ok", tool, name, input: input("x/other.txt"), cwd: root });
      expect(fine.allowed === false && fine.by === "rule").toBe(false);
    });
  }

  test("git_show's REF:PATH and grep's include glob meet the same rule", async () => {
    for (const name of ["git_show", "grep"]) {
      const rules = parsePermissionRules({ [name]: { "*": "allow", "secrets/*": "deny" } }, defaultPermission(TOOLS));
      const gate = createGate({ rules, plugins: createPluginHost({ cwd: root, writeStderr: () => {}, enabled: [] }), yolo: true, decide: denyAll });
      const tool = TOOLS.find((candidate) => candidate.name === name)!;
      const inputs =
        name === "git_show"
          ? ["HEAD:./secrets/a.txt", "HEAD:secrets//a.txt", "HEAD~1:x/../secrets/a.txt", "HEAD:secrets/a.txt/"].map((ref) => ({ ref }))
          : ["./secrets/*.txt", "secrets//*", "x/../secrets/**"].map((include) => ({ pattern: "s", include }));
      for (const [i, call] of inputs.entries()) {
        const result = await gate.check({ callId: `g${i}`, tool, name, input: call, cwd: root });
        expect([call, result.allowed]).toEqual([call, false]);
      }
    }
  });
});
