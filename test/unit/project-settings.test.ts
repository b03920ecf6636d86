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
import { readProjectSettings, trustProjectSettings } from "../../lib/store/project-settings.ts";
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
