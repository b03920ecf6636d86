/**
 * Helpers of the release tests: build a release with .ci/release/build.ts into a folder (or the
 * same release around a small stand-in executable, for the installer's own logic), serve folders
 * over HTTP on 127.0.0.1, and run a child process asynchronously (the server lives in the test
 * process) with a time limit.
 */
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join, normalize } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { buildRelease } from "../../.ci/release/build.ts";
import { findTarget } from "../../lib/release/targets.ts";
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

/**
 * The release build.ts writes for `target`, laid out byte for byte as a real one (archive,
 * SHA256SUMS, release.json, installers), around a 2-line sh script instead of the compiled
 * binary: it answers `--version` with the returned line (the real one's shape, "stand-in" where
 * the Bun version goes) and fails anything else. For cases about the installer's logic, where
 * copying and hashing the ~90 MB binary proves nothing more.
 */
export function buildStandInRelease(out: string, target: string, version = pkg.version): string {
  let line = "";
  const release = findTarget(target);
  if (!release) throw new Error(`unknown target ${target}`);
  buildRelease({ targets: [release], out, version }, (_target, outfile, defines) => {
    line = `shiro-neko ${defines.version} (${defines.commit.slice(0, 7)}${defines.commit.endsWith("-dirty") ? "-dirty" : ""} ${defines.date.slice(0, 10)})  stand-in  ${defines.target}  compiled`;
    writeFileSync(outfile, `#!/bin/sh\n[ "$1" = --version ] && { echo '${line}'; exit 0; }\necho "stand-in shiro: $*" >&2; exit 1\n`);
    chmodSync(outfile, 0o755);
  });
  return line;
}

/**
 * The release build.ts writes for `target` around an executable already built (dist/shiro, the
 * dev build, for the action's tests: they run turns, not the release build, which
 * release.test.ts checks), without compiling again.
 */
export function packRelease(out: string, target: string, binary: string, version = pkg.version): void {
  const release = findTarget(target);
  if (!release) throw new Error(`unknown target ${target}`);
  buildRelease({ targets: [release], out, version }, (_target, outfile) => copyFileSync(binary, outfile));
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
