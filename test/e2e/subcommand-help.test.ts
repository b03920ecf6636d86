/**
 * `--help` of a subcommand, through dist/shiro with stdout a pipe: the usage line names the path
 * the user typed (never the binary's internal `/$bunfs/…` path), every spelling of the help flag
 * gives the same text, and piped help carries no ANSI codes even with NO_COLOR unset and a colour
 * TERM (citty alone colours whenever NO_COLOR is not "1").
 */
import { afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import pkg from "../../package.json" with { type: "json" };
import { BINARY, ensureBinary, makeTempDirs, type TempDirs } from "./_harness.ts";

beforeAll(() => {
  ensureBinary();
}, 200_000);

let dirs: TempDirs;
beforeEach(() => {
  dirs = makeTempDirs();
});
afterEach(() => dirs.cleanup());

/** Runs the binary with stdout a pipe and an environment that would allow colour: no NO_COLOR, no CI, TERM set. */
function runPiped(args: string[]) {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dirs.home, SHIRO_HOME: dirs.home, TERM: "xterm-256color" };
  const result = spawnSync(BINARY, args, { cwd: dirs.cwd, env, encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const USAGE: [string[], string][] = [
  [["config"], "USAGE shiro config path|show|set"],
  [["config", "set"], "USAGE shiro config set [OPTIONS] <KEY> [VALUE]"],
  [["config", "path"], "USAGE shiro config path"],
  [["mcp", "add"], "USAGE shiro mcp add [OPTIONS] [NAME] [TARGET]"],
  [["mcp", "rm"], "USAGE shiro mcp rm [OPTIONS] <NAME>"],
  [["mcp", "remove"], "USAGE shiro mcp remove [OPTIONS] <NAME>"],
  [["runs", "search"], "USAGE shiro runs search [OPTIONS] <QUERY>"],
  [["memory", "list"], "USAGE shiro memory list [OPTIONS]"],
  [["sessions"], "USAGE shiro sessions [OPTIONS] show|compact|uncompact"],
  [["approve"], "USAGE shiro approve [OPTIONS] <ID>"],
  [["tools"], "USAGE shiro tools [OPTIONS]"],
];

describe("subcommand --help through dist/shiro", () => {
  test.each(USAGE)("%j: the usage line names the typed path, whatever the help spelling, with no ANSI codes", (path, usage) => {
    const results = [
      [...path, "--help"],
      [...path, "-h"],
    ].map(runPiped);
    for (const result of results) expect(result).toEqual(results[0]!);
    const { code, stdout, stderr } = results[0]!;
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout.split("\n")).toContain(usage);
    expect(stdout).not.toContain("\x1b");
    expect(stdout).not.toContain("$bunfs");
    expect(stdout).not.toMatch(/[ \t]$/m);
  });

  test("shiro config set --help, whole, with help after a positional giving the same text", () => {
    const expected = [
      `merge one setting into config.json: shiro config set toolSets '["git"]' (shiro config set v${pkg.version})`,
      "",
      "USAGE shiro config set [OPTIONS] <KEY> [VALUE]",
      "",
      "ARGUMENTS",
      "",
      "    KEY    top-level setting name (Required)",
      "  VALUE    JSON value (a bare word is taken as a string); omit to remove the key",
      "",
      "",
    ].join("\n");
    expect(runPiped(["config", "set", "--help"])).toEqual({ code: 0, stdout: expected, stderr: "" });
    expect(runPiped(["config", "set", "model", "--help"])).toEqual({ code: 0, stdout: expected, stderr: "" });
    expect([readdirSync(dirs.cwd), readdirSync(dirs.home)]).toEqual([[], []]);
  });

  test("a command's list of subcommands points at the typed path", () => {
    const { stdout } = runPiped(["runs", "--help"]);
    expect(stdout.split("\n").at(-2)).toBe("Use shiro runs <command> --help for more information about a command.");
  });
});
