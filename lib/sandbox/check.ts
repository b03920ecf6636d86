/**
 * The live check behind `shiro sandbox`: runs one harmless command in the sandbox and reports
 * what it saw. It writes nothing: `test -w` asks the kernel whether a write would be allowed
 * (a read-only mount answers no), and /proc/net/dev lists the network interfaces the command
 * can use (only `lo` in a sandbox without network). Never throws.
 */
import { spawnSync } from "node:child_process";
import type { SandboxStatus } from "./detect.ts";
import type { CommandSandbox } from "./session.ts";

export interface SandboxCheck {
  /** True when what the command saw matches the mode. */
  ok: boolean;
  /** `/usr` writable from inside. */
  systemWritable: boolean;
  /** The workspace writable from inside. */
  workspaceWritable: boolean;
  /** Network interfaces seen inside (Linux), or undefined where that cannot be read. */
  interfaces?: string[];
  /** What went wrong, when the check could not run or saw the wrong thing. */
  problem?: string;
}

const _SCRIPT = [
  "test -w /usr && echo system-writable",
  "test -w . && echo workspace-writable",
  "test -r /proc/net/dev && sed -n '3,$p' /proc/net/dev | cut -d: -f1 | tr -d ' ' | sed 's/^/if:/'",
  "true",
].join("; ");

export function checkSandbox(sandbox: CommandSandbox, root: string): SandboxCheck {
  let argv: string[];
  try {
    argv = sandbox.wrap(["sh", "-c", _SCRIPT], root);
  } catch (error) {
    return { ok: false, systemWritable: false, workspaceWritable: false, problem: error instanceof Error ? error.message : String(error) };
  }
  const run = spawnSync(argv[0]!, argv.slice(1), { cwd: root, encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "pipe"] });
  if (run.error || run.status !== 0) {
    const why = run.error?.message ?? (run.stderr.trim().split("\n")[0] || `exit ${run.status}`);
    return { ok: false, systemWritable: false, workspaceWritable: false, problem: `the check command failed: ${why}` };
  }
  const lines = run.stdout.split("\n");
  const seen: SandboxCheck = {
    ok: true,
    systemWritable: lines.includes("system-writable"),
    workspaceWritable: lines.includes("workspace-writable"),
    ...(lines.some((line) => line.startsWith("if:")) ? { interfaces: lines.filter((line) => line.startsWith("if:")).map((line) => line.slice(3)) } : {}),
  };
  const problem = _judge(sandbox.status, seen);
  return problem ? { ...seen, ok: false, problem } : seen;
}

function _judge(status: SandboxStatus, seen: SandboxCheck): string | undefined {
  if (status.mode === "off") return undefined;
  if (seen.systemWritable) return "/usr is writable from inside the sandbox";
  if (status.mode === "workspace-write" && !seen.workspaceWritable) return "the workspace is not writable from inside the sandbox";
  if (status.mode === "read-only" && seen.workspaceWritable) return "the workspace is writable from inside the read-only sandbox";
  if (!status.network && seen.interfaces && seen.interfaces.some((name) => name !== "lo")) {
    return `the sandbox sees network interfaces (${seen.interfaces.join(", ")}) although its network is off`;
  }
  return undefined;
}
