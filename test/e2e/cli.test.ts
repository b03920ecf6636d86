/**
 * Drives the compiled binary dist/shiro, as a user would: from an empty folder, with state in a
 * temp SHIRO_HOME and no provider keys from the caller. The harness rebuilds a stale binary.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT_FLAGS } from "../../lib/config/flags.ts";
import pkg from "../../package.json" with { type: "json" };
import { ensureBinary, makeTempDirs, runShiro as runBinary, type TempDirs } from "./_harness.ts";

beforeAll(() => {
  ensureBinary();
}, 200_000);

let dirs: TempDirs;
let home: string;
let cwd: string;
beforeEach(() => {
  dirs = makeTempDirs();
  ({ home, cwd } = dirs);
});
afterEach(() => dirs.cleanup());

const runShiro = (args: string[], env: Record<string, string> = {}) => runBinary(args, { cwd, home, env });

describe("dist/shiro", () => {
  test("--version from an empty folder prints one line, says compiled, and writes nothing", async () => {
    const version = await runShiro(["--version"]);
    // `bun run build` stamps the commit and the build day: `0.1.0 (9f12180 2026-12-01)`.
    const stamp = / \([0-9a-f]{7}(-dirty)? \d{4}-\d{2}-\d{2}\)(?=  bun )/;
    expect(version.stdout).toMatch(stamp);
    expect({ ...version, stdout: version.stdout.replace(stamp, "") }).toEqual({
      code: 0,
      signal: null,
      stdout: `shiro-neko ${pkg.version}  bun ${Bun.version}  ${process.platform}-${process.arch}  compiled\n`,
      stderr: "",
    });
    expect((await runShiro(["-v"])).stdout).toBe(version.stdout);
    expect([readdirSync(cwd), readdirSync(home)]).toEqual([[], []]);
  });

  test("--help lists every flag, SHIRO_HOME, the config path and the state folder", async () => {
    const help = await runShiro(["--help"]);
    expect([help.code, help.stderr]).toEqual([0, ""]);
    for (const flag of ROOT_FLAGS) expect(help.stdout).toContain(`--${flag.name}`);
    expect(help.stdout).toContain("SHIRO_HOME");
    expect(help.stdout).toContain(`Config file:   ${home}/.shiro-neko/config.json\n`);
    expect(help.stdout).toContain(`State folder:  ${home}/.shiro-neko  `);
    expect((await runShiro(["-h"])).stdout).toBe(help.stdout);
  });

  test("a bad flag exits 2 with one line and no stack", async () => {
    expect(await runShiro(["--bogus"])).toEqual({ code: 2, signal: null, stdout: "", stderr: "shiro: unknown flag --bogus (see shiro --help)\n" });
    expect(await runShiro(["--agent", "fast"])).toEqual({
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

    test("an invalid field: exit 2, one line naming the file and the field, file untouched", async () => {
      const bytes = '{\n\t"model": "m",\n\t"toolSets": ["core", "gits"]\n}';
      writeConfig(bytes);
      expect(await runShiro(["-p", "hello"], env)).toEqual({
        code: 2,
        signal: null,
        stdout: "",
        stderr: `shiro: ${configPath()}: "toolSets[1]" must be one of core, edit-plus, git, net\n`,
      });
      expect(readFileSync(configPath(), "utf8")).toBe(bytes);
      expect(configSiblings()).toEqual(["config.json"]);
    });

    test("not JSON at all: exit 2, one line, file untouched", async () => {
      const bytes = "provider = openai\n";
      writeConfig(bytes);
      expect(await runShiro(["-p", "hello"], env)).toEqual({
        code: 2,
        signal: null,
        stdout: "",
        stderr: `shiro: ${configPath()}: is not valid JSON\n`,
      });
      expect(readFileSync(configPath(), "utf8")).toBe(bytes);
      expect(configSiblings()).toEqual(["config.json"]);
    });
  });
});
