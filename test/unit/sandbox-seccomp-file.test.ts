/**
 * The seccomp filter's file is one no sandboxed command can change: bwrap reads it again at every
 * command, so a command that could rewrite it would unload the filter of the next one. It lives in
 * the state folder (hidden from every command), whatever TMPDIR says, and is checked and mended
 * once per process. Each case runs in a fresh process (the file is chosen once per process), with
 * TMPDIR inside the workspace: where a temp folder would be writable by the command itself.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildSeccompFilter, filterReachableBy } from "../../lib/sandbox/seccomp.ts";
import { sandboxTest } from "./sandbox-required.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
// The filter a command could load instead: `ret ALLOW` for every system call.
const ALLOW_ALL = "\\006\\000\\000\\000\\000\\000\\377\\177";
let base = "";
let home = "";
let state = "";
let workspace = "";

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "shiro-seccomp-file-")));
  home = join(base, "home");
  state = join(home, ".shiro-neko");
  workspace = join(base, "ws");
  mkdirSync(join(workspace, "tmp"), { recursive: true });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Runs `body` (statements with `file`, `sandbox` and `run(command, root?)` in scope) in a fresh bun; its printed JSON. */
function _inFreshProcess(body: string, env: Record<string, string> = {}): unknown {
  const script = join(base, `case-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(
    script,
    `import { detectSandbox } from ${JSON.stringify(join(ROOT, "lib/sandbox/detect.ts"))};
     import { createCommandSandbox } from ${JSON.stringify(join(ROOT, "lib/sandbox/session.ts"))};
     import { seccompFilterFile } from ${JSON.stringify(join(ROOT, "lib/sandbox/seccomp.ts"))};
     import { bashTool } from ${JSON.stringify(join(ROOT, "lib/tools/bash.ts"))};
     const file = seccompFilterFile();
     const sandbox = createCommandSandbox(detectSandbox({ config: { mode: "workspace-write", network: true }, keep: false }), {});
     const run = (command: string, root = ${JSON.stringify(workspace)}) =>
       bashTool.execute({ command }, { root, signal: new AbortController().signal, emitOutput: () => {}, callId: "c", sandbox });
     ${body}`,
  );
  const result = spawnSync(process.execPath, [script], {
    cwd: workspace,
    env: { PATH: process.env.PATH ?? "", HOME: join(base, "user"), SHIRO_HOME: home, TMPDIR: join(workspace, "tmp"), ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  if (result.status !== 0) throw new Error(`case failed:\n${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!);
}

sandboxTest("a sandboxed command cannot replace the filter, so the next command still cannot reach a Unix socket", () => {
  const socket = join(workspace, "daemon.sock");
  const outcome = _inFreshProcess(`
    const { createServer } = await import("node:net");
    let accepted = 0;
    const server = createServer((s) => { accepted += 1; s.end(); });
    await new Promise((done) => server.listen(${JSON.stringify(socket)}, done));
    const tamper = await run(${JSON.stringify(`printf '${ALLOW_ALL}' > `)} + "'" + file + "'");
    const connect = await run(\`python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${socket}')"\`);
    server.close();
    console.log(JSON.stringify({ file, tampered: tamper.startsWith("exit: 0"), connected: connect.startsWith("exit: 0"), accepted }));`);
  expect(outcome).toEqual({ file: join(state, "sandbox", `seccomp-${process.arch}.bpf`), tampered: false, connected: false, accepted: 0 });
  expect([...readFileSync(join(state, "sandbox", `seccomp-${process.arch}.bpf`))]).toEqual([...buildSeccompFilter()!]);
});

sandboxTest("a workspace that holds the filter gets its commands refused, with the reason", () => {
  mkdirSync(state, { recursive: true });
  const outcome = _inFreshProcess(`console.log(JSON.stringify(await run("true", ${JSON.stringify(state)}).catch((error) => error.message)));`);
  expect(String(outcome)).toContain("the seccomp filter");
  expect(String(outcome)).toContain("SHIRO_HOME");
});

test("a damaged, foreign or linked filter file is rewritten at a process's first use; a link's target is left alone", () => {
  if (!buildSeccompFilter()) return;
  const file = join(state, "sandbox", `seccomp-${process.arch}.bpf`);
  const target = join(base, "elsewhere.bpf");
  const check = `console.log(JSON.stringify(file));`;
  for (const plant of ["garbage", "", "link"]) {
    rmSync(file, { force: true });
    mkdirSync(join(state, "sandbox"), { recursive: true });
    if (plant === "link") {
      writeFileSync(target, "not a filter");
      symlinkSync(target, file);
    } else writeFileSync(file, plant);
    expect(_inFreshProcess(check)).toBe(file);
    expect({ plant, link: lstatSync(file).isSymbolicLink(), bytes: [...readFileSync(file)] }).toEqual({
      plant,
      link: false,
      bytes: [...buildSeccompFilter()!],
    });
  }
  expect(readFileSync(target, "utf8")).toBe("not a filter");
});

test("the filter is reachable only from a writable folder that holds it and no hidden folder over it", () => {
  const cases: [string, string[], string[], boolean][] = [
    ["/h/.shiro-neko/sandbox/f.bpf", ["/w"], [], false],
    ["/h/.shiro-neko/sandbox/f.bpf", ["/h/.shiro-neko"], [], true],
    ["/h/.shiro-neko/sandbox/f.bpf", ["/h/.shiro-neko/sandbox/f.bpf"], [], true],
    ["/h/.shiro-neko/sandbox/f.bpf", ["/h"], ["/h/.shiro-neko"], false],
    ["/h/.shiro-neko/sandbox/f.bpf", ["/"], ["/h/.shiro-neko/sandbox"], false],
    ["/h/.shiro-neko/sandbox/f.bpf", ["/w", "/h/.shiro-neko/sandbox"], ["/h/.ssh"], true],
    ["/h/.shiro-neko/sandbox/f.bpf", ["/h/.shiro-nek"], [], false],
    ["/h/.shiro-neko/sandbox/f.bpf", ["/h/.shiro-neko/sandbox2"], [], false],
  ];
  for (const [file, writable, hidden, reachable] of cases)
    expect({ file, writable, hidden, reachable: filterReachableBy(file, writable, hidden) }).toEqual({ file, writable, hidden, reachable });
});
