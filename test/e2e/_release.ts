/**
 * Helpers of the release tests: build a release with .ci/release/build.ts into a folder, serve
 * folders over HTTP on 127.0.0.1, and run a child process asynchronously (the server lives in the
 * test process) with a time limit.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join, normalize } from "node:path";
import { ROOT } from "./_harness.ts";

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to completion, SIGKILLed after `timeoutMs` (default 60 s). */
export function runProcess(
  command: string,
  args: string[],
  options: { env: Record<string, string>; cwd?: string; timeoutMs?: number },
): Promise<ProcessResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** `bun .ci/release/build.ts --out <out> --targets <targets> [--version <version>]`; throws with its output on failure. */
export async function buildTestRelease(out: string, targets: string[], version?: string, env: Record<string, string> = {}): Promise<void> {
  const args = [".ci/release/build.ts", "--out", out, "--targets", targets.join(","), ...(version ? ["--version", version] : [])];
  const result = await runProcess(process.execPath, args, { env: { ...process.env, ...env } as Record<string, string>, timeoutMs: 600_000 });
  if (result.code !== 0) throw new Error(`release build failed:\n${result.stdout}${result.stderr}`);
}

/** The target install.sh picks on this machine (Linux x64 or arm64, glibc). */
export function nativeTarget(): string {
  if (process.arch === "arm64") return "linux-arm64";
  const avx2 = /\bavx2\b/.test(readFileSync("/proc/cpuinfo", "utf8"));
  return avx2 ? "linux-x64" : "linux-x64-baseline";
}

export interface FolderServer {
  /** `http://127.0.0.1:<port>`; `/<name>/<file>` serves `<file>` from the folder mounted as name. */
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  stop(): Promise<void>;
}

/** Serves each folder of `mounts` under `/<name>/`; anything else is 404. */
export async function serveFolders(mounts: Record<string, string>): Promise<FolderServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? "/").split("?")[0]!);
    requests.push(path);
    const [, name = "", ...rest] = path.split("/");
    const folder = mounts[name];
    const file = normalize(rest.join("/"));
    if (!folder || file.startsWith("..") || file === ".") return void response.writeHead(404).end("not found");
    let body: Buffer;
    try {
      body = readFileSync(join(folder, file));
    } catch {
      return void response.writeHead(404).end("not found");
    }
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length }).end(body);
  });
  await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}
