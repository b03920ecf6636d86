/**
 * The first request as sent: runs shiro from source (`bun cmd/shiro.ts -p hi …`, the same code
 * the binary compiles) in a fresh git repository with an empty state folder, against the fake
 * provider on 127.0.0.1, and measures the body the fake received. The workspace path and the
 * platform are normalised to a reference (`/home/someone/projects/a-typical-project`,
 * `linux-x64`) so the figures do not depend on where or on what machine they are taken.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fakeEnv, systemOf, type WireProtocol } from "../e2e/_harness.ts";
import { startFakeProvider, type RecordedRequest } from "../fakes/provider.ts";

export const REFERENCE_ROOT = "/home/someone/projects/a-typical-project";
const _SHIRO = resolve(import.meta.dir, "..", "..", "cmd", "shiro.ts");

export interface MeasuredTool {
  name: string;
  /** Bytes of its entry in the request's tool list. */
  bytes: number;
}

export interface FirstRequest {
  protocol: WireProtocol;
  total: number;
  system: number;
  tools: MeasuredTool[];
  /** The description of load_tools (the deferred tools' lines), when it was sent. */
  deferredList?: string;
  /** Everything else: model, message framing, the prompt "hi", options. */
  framing: number;
}

export interface MeasureOptions {
  /** Extra arguments after `-p hi`. */
  args?: string[];
  /** Prepares the state folder (config.json, skills) and the workspace before the run. */
  setup?: (dirs: { home: string; cwd: string }) => void;
}

/** The first request of `shiro -p hi` over `protocol`, normalised (see the module comment). */
export async function measureFirstRequest(protocol: WireProtocol, options: MeasureOptions = {}): Promise<FirstRequest> {
  const fake = await startFakeProvider();
  const home = mkdtempSync(join(tmpdir(), "shiro-bytes-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "shiro-bytes-cwd-"));
  try {
    spawnSync("git", ["init", "-q"], { cwd, timeout: 10_000 });
    options.setup?.({ home, cwd });
    fake.script({ text: "hello" });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, SHIRO_HOME: home, NO_COLOR: "1", ...fakeEnv(fake.baseURL, protocol) };
    const code = await new Promise<number | null>((done) => {
      const child = spawn(process.execPath, [_SHIRO, "-p", "hi", ...(options.args ?? [])], { cwd, env, stdio: "ignore" });
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.on("close", (status) => {
        clearTimeout(timer);
        done(status);
      });
    });
    const request = fake.requests[0];
    if (code !== 0 || !request)
      throw new Error(`shiro -p hi ${(options.args ?? []).join(" ")} over ${protocol} exited ${code} after ${fake.requests.length} requests`);
    return _measure(protocol, request, cwd);
  } finally {
    await fake.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

function _measure(protocol: WireProtocol, request: RecordedRequest, cwd: string): FirstRequest {
  const platform = `${process.platform}-${process.arch}`;
  const normalise = (text: string) => text.split(cwd).join(REFERENCE_ROOT).split(`Platform: ${platform}`).join("Platform: linux-x64");
  const bytes = (value: unknown) => Buffer.byteLength(normalise(JSON.stringify(value)));
  const tools = ((request.body.tools ?? []) as any[]).map((tool) => ({ name: String(tool.name ?? tool.function?.name), bytes: bytes(tool), raw: tool }));
  const loader = tools.find((tool) => tool.name === "load_tools")?.raw;
  const system = Buffer.byteLength(normalise(systemOf(request)));
  const total = bytes(request.body);
  const toolBytes = tools.reduce((sum, tool) => sum + tool.bytes, 0);
  return {
    protocol,
    total,
    system,
    framing: total - system - toolBytes,
    tools: tools.map(({ name, bytes: size }) => ({ name, bytes: size })),
    ...(loader ? { deferredList: String(loader.description ?? loader.function?.description) } : {}),
  };
}
