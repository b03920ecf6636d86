/**
 * Decides the sandbox of a session, once, from config `sandbox`, `--no-sandbox` and the machine.
 *
 * - `--no-sandbox`, or config `"off"`: off, silently (the user chose it).
 * - No mode in config (the default): `workspace-write` when the runner works here, otherwise
 *   off with a `notice` saying why (shown once per session).
 * - A mode named in config (`workspace-write`, `read-only`) that the machine cannot give: off,
 *   and `refusal` is set: shell commands are refused rather than run unconfined.
 *
 * The runner is bubblewrap on Linux (config `sandbox.bwrap`, else `bwrap` on PATH), probed by
 * running `true` under the very options real commands get; `sandbox-exec` on macOS; none
 * elsewhere. Never throws.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { SANDBOX_MODES, type ConfigFile } from "../config/config.ts";
import { buildBwrapArgv } from "./bwrap.ts";
import { buildSeatbeltArgv } from "./seatbelt.ts";
import { seccompFilterFile } from "./seccomp.ts";

export { SANDBOX_MODES };
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** Config `sandbox`: a mode, or an object with the mode and its options. */
export type SandboxConfig = NonNullable<ConfigFile["sandbox"]>;

export interface SandboxRunner {
  kind: "bwrap" | "sandbox-exec";
  path: string;
}

export interface SandboxStatus {
  /** The mode in force (`off` when no runner works or the user turned it off). */
  mode: SandboxMode;
  /** Whether sandboxed commands may use the network (config `sandbox.network`). */
  network: boolean;
  /** Set whenever `mode` is not `off`. */
  runner?: SandboxRunner;
  /** Where the mode came from. */
  source: "default" | "config" | "--no-sandbox";
  /** Why the sandbox is off although nobody turned it off: the once-per-session notice. */
  notice?: string;
  /** Config asked for a mode this machine cannot give: shell commands are refused with this. */
  refusal?: string;
  /** Config `sandbox.mcp`: MCP stdio servers run sandboxed too. */
  mcp: boolean;
}

export interface DetectOptions {
  config?: SandboxConfig;
  noSandbox?: boolean;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

const _PROBE_TIMEOUT_MS = 5_000;

export function detectSandbox(options: DetectOptions = {}): SandboxStatus {
  const config = typeof options.config === "string" ? { mode: options.config } : (options.config ?? {});
  const network = config.network === true;
  const mcp = config.mcp === true;
  if (options.noSandbox) return { mode: "off", network, source: "--no-sandbox", mcp };
  if (config.mode === "off") return { mode: "off", network, source: "config", mcp };
  const wanted = config.mode ?? "workspace-write";
  const source = config.mode ? "config" : "default";
  const found = _findRunner(options.platform ?? process.platform, config.bwrap, options.env ?? process.env);
  if ("runner" in found) return { mode: wanted, network, runner: found.runner, source, mcp };
  if (source === "config") {
    return {
      mode: "off",
      network,
      source,
      mcp,
      notice: `sandbox ${wanted} unavailable: ${found.why}; shell commands are refused until it works or config sets "sandbox": "off"`,
      refusal: `Refused: config asks for the ${wanted} sandbox, but ${found.why}. Install bubblewrap (apt-get install bubblewrap), fix "sandbox.bwrap", or set "sandbox" to "off" in config.json.`,
    };
  }
  return {
    mode: "off",
    network,
    source,
    mcp,
    notice: `sandbox off: ${found.why}; shell commands run unconfined (install bubblewrap, or set "sandbox": "off" to silence this)`,
  };
}

function _findRunner(platform: NodeJS.Platform, configured: string | undefined, env: NodeJS.ProcessEnv): { runner: SandboxRunner } | { why: string } {
  if (platform === "darwin") {
    const path = configured ?? "/usr/bin/sandbox-exec";
    const probe = _probe(buildSeatbeltArgv(path, { mode: "read-only", network: false }, "/", "/tmp", ["/usr/bin/true"]));
    return probe ? { why: `sandbox-exec (${path}) does not work here: ${probe}` } : { runner: { kind: "sandbox-exec", path } };
  }
  if (platform !== "linux") return { why: `no sandbox runner exists for ${platform}` };
  const path = configured ?? _which("bwrap", env.PATH ?? "");
  if (!path) return { why: "bwrap (bubblewrap) is not on PATH" };
  if (configured && !_isExecutable(configured)) return { why: `"sandbox.bwrap" names ${configured}, which is not an executable file` };
  const probe = _probe(buildBwrapArgv(path, { mode: "read-only", network: false, seccompFile: seccompFilterFile() }, "/", ["true"]));
  return probe ? { why: `bwrap (${path}) does not work here: ${probe}` } : { runner: { kind: "bwrap", path } };
}

/** Runs the probe argv; undefined when it exited 0, else why not in a few words. */
function _probe(argv: string[]): string | undefined {
  const result = spawnSync(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", timeout: _PROBE_TIMEOUT_MS });
  if (result.error) return (result.error as NodeJS.ErrnoException).code ?? result.error.message;
  if (result.status === 0) return undefined;
  const line = (result.stderr ?? "")
    .split("\n")
    .map((text) => text.trim())
    .find(Boolean);
  return (line ?? `exit ${result.status ?? result.signal}`).slice(0, 200);
}

function _which(name: string, pathList: string): string | undefined {
  for (const dir of pathList.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (_isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function _isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** One line for the REPL banner and `shiro sandbox`: `sandbox: workspace-write (bwrap /usr/bin/bwrap), network off`. */
export function describeSandbox(status: SandboxStatus): string {
  if (status.mode !== "off" && status.runner) {
    return `sandbox: ${status.mode} (${status.runner.kind} ${status.runner.path}), network ${status.network ? "on" : "off"}`;
  }
  if (status.refusal) return "sandbox: unavailable, shell commands are refused";
  if (status.source === "--no-sandbox") return "sandbox: off (--no-sandbox)";
  if (status.source === "config") return "sandbox: off (config)";
  return "sandbox: off";
}
