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
 * elsewhere. The probe's outcome is kept in lib/store/learned.ts with a fingerprint of what it
 * depends on (the runner binary's identity, the kernel, the user, the user-namespace switches),
 * so a later start on the same machine spawns nothing; `fresh` probes anyway and keeps the new
 * outcome. Never throws.
 */
import { accessSync, constants, readFileSync, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import * as v from "valibot";
import { SANDBOX_MODES, type ConfigFile } from "../config/config.ts";
import { keepLearned, recallLearned } from "../store/learned.ts";
import { buildBwrapArgv } from "./bwrap.ts";
import { buildSeatbeltArgv } from "./seatbelt.ts";
import { seccompFilterFile } from "./seccomp.ts";
import { nodeOs, childProcess } from "../platform/runtime.ts";

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
  /** Probe now even when an earlier run's outcome still holds (`shiro sandbox`). */
  fresh?: boolean;
  /** Default true: keep the outcome for later runs. False reads and writes no state at all. */
  keep?: boolean;
}

const _PROBE_TIMEOUT_MS = 5_000;
/** Bumped whenever the probe's argv changes, so outcomes kept by an older shiro are not trusted. */
const _PROBE_FORMAT = 1;
const _PROBE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Kernel switches that decide whether unprivileged user namespaces (and so bwrap) work. */
const _USERNS_SWITCHES = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];
const _ProbeOutcome = v.object({ failure: v.optional(v.string()) });

export function detectSandbox(options: DetectOptions = {}): SandboxStatus {
  const config = typeof options.config === "string" ? { mode: options.config } : (options.config ?? {});
  const network = config.network === true;
  const mcp = config.mcp === true;
  if (options.noSandbox) return { mode: "off", network, source: "--no-sandbox", mcp };
  if (config.mode === "off") return { mode: "off", network, source: "config", mcp };
  const wanted = config.mode ?? "workspace-write";
  const source = config.mode ? "config" : "default";
  const found = _findRunner(options.platform ?? process.platform, config.bwrap, options.env ?? process.env, {
    fresh: options.fresh === true,
    keep: options.keep !== false,
  });
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

function _findRunner(
  platform: NodeJS.Platform,
  configured: string | undefined,
  env: NodeJS.ProcessEnv,
  cache: _ProbeCache,
): { runner: SandboxRunner } | { why: string } {
  if (platform === "darwin") {
    const path = configured ?? "/usr/bin/sandbox-exec";
    const probe = _probeOnce(path, cache, () => _probe(buildSeatbeltArgv(path, { mode: "read-only", network: false }, "/", "/tmp", ["/usr/bin/true"])));
    return probe ? { why: `sandbox-exec (${path}) does not work here: ${probe}` } : { runner: { kind: "sandbox-exec", path } };
  }
  if (platform !== "linux") return { why: `no sandbox runner exists for ${platform}` };
  const path = configured ?? _which("bwrap", env.PATH ?? "");
  if (!path) return { why: "bwrap (bubblewrap) is not on PATH" };
  if (configured && !_isExecutable(configured)) return { why: `"sandbox.bwrap" names ${configured}, which is not an executable file` };
  const probe = _probeOnce(path, cache, () => {
    let seccompFile: string | undefined;
    try {
      seccompFile = seccompFilterFile();
    } catch (error) {
      return `its seccomp filter cannot be written (${error instanceof Error ? error.message : String(error)})`;
    }
    return _probe(buildBwrapArgv(path, { mode: "read-only", network: false, seccompFile }, "/", ["true"]));
  });
  return probe ? { why: `bwrap (${path}) does not work here: ${probe}` } : { runner: { kind: "bwrap", path } };
}

interface _ProbeCache {
  fresh: boolean;
  keep: boolean;
}

/** The outcome of probing `runner`: kept from an earlier run while its fingerprint holds, else probed now and kept. */
function _probeOnce(runner: string, cache: _ProbeCache, probe: () => string | undefined): string | undefined {
  const basis = cache.keep ? _runnerBasis(runner) : undefined;
  if (basis === undefined) return probe();
  const key = `sandbox-probe:${runner}`;
  if (!cache.fresh) {
    const kept = recallLearned(key, { basis, schema: _ProbeOutcome, maxAgeMs: _PROBE_MAX_AGE_MS });
    if (kept) return kept.failure;
  }
  const failure = probe();
  keepLearned(key, basis, failure === undefined ? {} : { failure });
  return failure;
}

/** A fingerprint of what a probe's outcome depends on; undefined when the runner cannot be identified (then nothing is kept). */
function _runnerBasis(runner: string): string | undefined {
  try {
    const real = realpathSync(runner);
    const stat = statSync(real);
    const switches = _USERNS_SWITCHES.map((file) => {
      try {
        return readFileSync(file, "utf8").trim();
      } catch {
        return null;
      }
    });
    const uid = typeof process.getuid === "function" ? process.getuid() : -1;
    return JSON.stringify([
      _PROBE_FORMAT,
      real,
      stat.dev,
      stat.ino,
      stat.size,
      stat.mtimeMs,
      stat.ctimeMs,
      nodeOs().release(),
      nodeOs().version(),
      process.arch,
      uid,
      switches,
    ]);
  } catch {
    return undefined;
  }
}

/** Runs the probe argv; undefined when it exited 0, else why not in a few words. */
function _probe(argv: string[]): string | undefined {
  const result = childProcess().spawnSync(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", timeout: _PROBE_TIMEOUT_MS });
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
