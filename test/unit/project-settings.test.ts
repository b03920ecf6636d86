/**
 * A project's Claude Code settings as the store reads them: both files, what is skipped and why,
 * and the trust record on disk — bound to the content of both files, kept apart from the
 * `.mcp.json` entry of the same project (an entry written before settings existed still counts).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readProjectMcp, trustProjectMcp } from "../../lib/store/project-mcp.ts";
import { addProjectAllowRule, readProjectSettings, trustProjectSettings } from "../../lib/store/project-settings.ts";
import { useTempHome } from "./temp-home.ts";

const home = useTempHome("shiro-settings-home-");
let root = "";
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "shiro-settings-")));
  mkdirSync(join(root, ".claude"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (name: string, value: unknown) => writeFileSync(join(root, name), typeof value === "string" ? value : JSON.stringify(value));

describe("reading", () => {
  test("hooks and permissions of both files, in order, each with its file; the rest is skipped with why", () => {
    write(".claude/settings.json", {
      permissions: { allow: ["Bash(npm test:*)"], deny: ["Read(./.env)", 7], defaultMode: "plan" },
      hooks: { Stop: [{ hooks: [{ type: "command", command: "say done" }] }], TeammateIdle: [] },
      env: { FOO: "1" },
    });
    write(".claude/settings.local.json", {
      permissions: { ask: ["WebFetch"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "gate.sh", timeout: 3 }] }] },
    });
    const settings = readProjectSettings(root)!;
    const [shared, local] = [join(root, ".claude/settings.json"), join(root, ".claude/settings.local.json")];
    expect(settings).toEqual({
      root,
      paths: [shared, local],
      hooks: [
        { event: "Stop", matcher: "", command: "say done", timeoutSec: 60, source: shared },
        { event: "PreToolUse", matcher: "Bash", command: "gate.sh", timeoutSec: 3, source: local },
      ],
      permissions: [
        { decision: "allow", rule: "Bash(npm test:*)", source: shared },
        { decision: "deny", rule: "Read(./.env)", source: shared },
        { decision: "ask", rule: "WebFetch", source: local },
      ],
      skipped: [`${shared}: hooks.TeammateIdle: shiro does not raise this event`, `${shared}: permissions.deny holds 7, not a rule`],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      trusted: false,
    });
  });

  test("no settings file: nothing; a file that is not a JSON object: a one-line error naming it", () => {
    rmSync(join(root, ".claude"), { recursive: true });
    expect(readProjectSettings(root)).toBeUndefined();
    mkdirSync(join(root, ".claude"));
    write(".claude/settings.json", "{ nope");
    expect(() => readProjectSettings(root)).toThrow(`${join(root, ".claude/settings.json")} is not JSON`);
    write(".claude/settings.json", "[1]");
    expect(() => readProjectSettings(root)).toThrow(`${join(root, ".claude/settings.json")} is not a JSON object; fix it or remove it`);
  });
});

describe("trust", () => {
  test("is recorded for the exact content of both files; editing either makes it untrusted again", () => {
    write(".claude/settings.json", { hooks: { Stop: [{ hooks: [{ type: "command", command: "a" }] }] } });
    trustProjectSettings(readProjectSettings(root)!);
    expect(readProjectSettings(root)!.trusted).toBe(true);
    write(".claude/settings.local.json", { permissions: { allow: ["Bash"] } });
    expect(readProjectSettings(root)!.trusted).toBe(false);
    trustProjectSettings(readProjectSettings(root)!);
    expect(readProjectSettings(root)!.trusted).toBe(true);
    write(".claude/settings.json", { hooks: { Stop: [{ hooks: [{ type: "command", command: "b" }] }] } });
    expect(readProjectSettings(root)!.trusted).toBe(false);
  });

  test("sits beside the .mcp.json entry of the same project, which keeps its old shape", () => {
    write(".mcp.json", { mcpServers: { fs: { command: "fs-server" } } });
    write(".claude/settings.json", { permissions: { allow: ["Bash"] } });
    trustProjectMcp(readProjectMcp(root)!);
    trustProjectSettings(readProjectSettings(root)!);
    expect(readProjectMcp(root)!.trusted).toBe(true);
    expect(readProjectSettings(root)!.trusted).toBe(true);
    const file = JSON.parse(readFileSync(join(home.dir, ".shiro-neko", "trusted-projects.json"), "utf8"));
    expect(file.entries.map((entry: Record<string, unknown>) => Object.keys(entry).sort())).toEqual([
      ["at", "root", "sha256"],
      ["at", "file", "root", "sha256"],
    ]);
    expect(file.entries[1].file).toBe(".claude/settings.json");
  });
});

describe('a rule added by an "always in this project" answer', () => {
  const local = () => join(root, ".claude/settings.local.json");
  const read = () => JSON.parse(readFileSync(local(), "utf8")) as unknown;

  test("creates settings.local.json with exactly the rule, trusted, so the next session uses it", () => {
    rmSync(join(root, ".claude"), { recursive: true });
    expect(addProjectAllowRule(root, "Bash(touch:*)")).toBe(local());
    expect(read()).toEqual({ permissions: { allow: ["Bash(touch:*)"] } });
    const settings = readProjectSettings(root)!;
    expect(settings.trusted).toBe(true);
    expect(settings.permissions).toEqual([{ decision: "allow", rule: "Bash(touch:*)", source: local() }]);
  });

  test("keeps the file's other keys and rules, lists a rule once, and re-trusts trusted settings", () => {
    write(".claude/settings.json", { hooks: { Stop: [{ hooks: [{ type: "command", command: "a" }] }] } });
    write(".claude/settings.local.json", { env: { A: "1" }, permissions: { allow: ["Read"], deny: ["Bash(rm:*)"] } });
    trustProjectSettings(readProjectSettings(root)!);
    addProjectAllowRule(root, "Bash(git:*)");
    addProjectAllowRule(root, "Bash(git:*)");
    expect(read()).toEqual({ env: { A: "1" }, permissions: { allow: ["Read", "Bash(git:*)"], deny: ["Bash(rm:*)"] } });
    expect(readProjectSettings(root)!.trusted).toBe(true);
  });

  const refused: [string, string, string][] = [
    ["untrusted settings with rules", JSON.stringify({ permissions: { allow: ["Bash"] } }), "not trusted here"],
    ["a file that is not JSON", "{ nope", "is not JSON"],
    ["permissions that are a list", JSON.stringify({ permissions: ["Bash"] }), "is not an object"],
    ["an allow that is a string", JSON.stringify({ permissions: { allow: "Bash" } }), "is not a list"],
  ];
  for (const [name, content, why] of refused) {
    test(`${name}: refused with a one-line error, the file untouched`, () => {
      write(".claude/settings.local.json", content);
      if (name !== "untrusted settings with rules" && name !== "a file that is not JSON") trustProjectSettings(readProjectSettings(root)!);
      expect(() => addProjectAllowRule(root, "Bash(git:*)")).toThrow(why);
      expect(readFileSync(local(), "utf8")).toBe(content);
    });
  }
});
