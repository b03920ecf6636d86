/**
 * Drives the compiled binary dist/shiro, as a user would: from an empty folder, with state in a
 * temp SHIRO_HOME. The binary is (re)built first when it is missing or older than any source.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ROOT_FLAGS } from "../../cmd/_flags.ts";
import pkg from "../../package.json" with { type: "json" };

const ROOT = resolve(import.meta.dir, "..", "..");
const BINARY = join(ROOT, "dist", "shiro");

function newestSourceMtime(): number {
  let newest = 0;
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const entry of ["cmd", "lib", "plugins", "skills", "package.json", "bun.lock"]) visit(join(ROOT, entry));
  return newest;
}

beforeAll(() => {
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= newestSourceMtime()) return;
  const build = spawnSync(process.execPath, ["run", "build"], { cwd: ROOT, encoding: "utf8", timeout: 180_000 });
  if (build.status !== 0) throw new Error(`bun run build failed:\n${build.stdout}${build.stderr}`);
}, 200_000);

let home: string;
let cwd: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "shiro-e2e-home-"));
  cwd = mkdtempSync(join(tmpdir(), "shiro-e2e-cwd-"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

/** Runs the binary with a minimal environment: no provider keys leak in from the caller. */
function runShiro(args: string[], extraEnv: Record<string, string> = {}) {
  const result = spawnSync(BINARY, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 20_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, SHIRO_HOME: home, NO_COLOR: "1", ...extraEnv },
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

describe("dist/shiro", () => {
  test("--version from an empty folder prints one line, says compiled, and writes nothing", () => {
    expect(runShiro(["--version"])).toEqual({
      code: 0,
      signal: null,
      stdout: `shiro-neko ${pkg.version}  bun ${Bun.version}  ${process.platform}-${process.arch}  compiled\n`,
      stderr: "",
    });
    expect(runShiro(["-v"]).stdout).toStartWith(`shiro-neko ${pkg.version}  `);
    expect([readdirSync(cwd), readdirSync(home)]).toEqual([[], []]);
  });

  test("--help lists every flag, SHIRO_HOME, the config path and the state folder", () => {
    const help = runShiro(["--help"]);
    expect([help.code, help.stderr]).toEqual([0, ""]);
    for (const flag of ROOT_FLAGS) expect(help.stdout).toContain(`--${flag.name}`);
    expect(help.stdout).toContain("SHIRO_HOME");
    expect(help.stdout).toContain(`Config file:   ${home}/.shiro-neko/config.json\n`);
    expect(help.stdout).toContain(`State folder:  ${home}/.shiro-neko  `);
    expect(runShiro(["-h"]).stdout).toBe(help.stdout);
  });

  test("a bad flag exits 2 with one line and no stack", () => {
    expect(runShiro(["--bogus"])).toEqual({ code: 2, signal: null, stdout: "", stderr: "shiro: unknown flag --bogus (see shiro --help)\n" });
    expect(runShiro(["--agent", "fast"])).toEqual({
      code: 2,
      signal: null,
      stdout: "",
      stderr: 'shiro: unknown agent "fast" for --agent. Available: default, quick, deep, plan, review (see shiro --help)\n',
    });
  });

  describe("a bad config.json", () => {
    // Keys and a local base URL are set so that only the config file can stop the run.
    const env = { SHIRO_API_KEY: "test-key", SHIRO_BASE_URL: "http://127.0.0.1:9/v1" };
    const configPath = () => join(home, ".shiro-neko", "config.json");
    const writeConfig = (bytes: string) => {
      mkdirSync(join(home, ".shiro-neko"), { recursive: true, mode: 0o700 });
      writeFileSync(configPath(), bytes, { mode: 0o600 });
    };
    const configSiblings = () => readdirSync(join(home, ".shiro-neko")).filter((name) => name.startsWith("config.json"));

    test("an invalid field: exit 1, one line naming the file and the field, file untouched", () => {
      const bytes = '{\n\t"model": "m",\n\t"toolSets": ["core", "gits"]\n}';
      writeConfig(bytes);
      expect(runShiro(["-p", "hello"], env)).toEqual({
        code: 1,
        signal: null,
        stdout: "",
        stderr: `shiro: ${configPath()}: "toolSets[1]" must be one of core, edit-plus, git, net\n`,
      });
      expect(readFileSync(configPath(), "utf8")).toBe(bytes);
      expect(configSiblings()).toEqual(["config.json"]);
    });

    test("not JSON at all: exit 1, one line, file untouched", () => {
      const bytes = "provider = openai\n";
      writeConfig(bytes);
      expect(runShiro(["-p", "hello"], env)).toEqual({
        code: 1,
        signal: null,
        stdout: "",
        stderr: `shiro: ${configPath()}: is not valid JSON\n`,
      });
      expect(readFileSync(configPath(), "utf8")).toBe(bytes);
      expect(configSiblings()).toEqual(["config.json"]);
    });
  });
});
