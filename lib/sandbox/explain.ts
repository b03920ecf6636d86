/**
 * Tells whether a failed sandboxed command failed because of the sandbox, from what it printed.
 *
 * Only a command that exited non-zero on its own (no timeout, no interrupt) is explained. A
 * write refusal is the kernel's "Read-only file system" (EROFS) under bubblewrap, or
 * "Operation not permitted" under sandbox-exec. A network failure is only blamed on the sandbox
 * when its network is off: then every refused connection, unreachable network or failed name
 * lookup is its doing, since nothing else is reachable. The answer is one sentence for the
 * model and the user, or undefined when the output shows no sign of the sandbox.
 */
import type { SandboxStatus } from "./detect.ts";

const _WRITE_DENIED = /Read-only file system|\bEROFS\b/i;
const _WRITE_DENIED_MAC = /Operation not permitted|\bEPERM\b/i;
const _NETWORK_DOWN = new RegExp(
  [
    "Network is unreachable",
    "ENETUNREACH",
    "Connection refused",
    "ECONNREFUSED",
    "Couldn't connect to server",
    "Failed to connect",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "EAI_AGAIN",
    "ENOTFOUND",
    "getaddrinfo",
    "nodename nor servname",
    "No address associated with hostname",
    "Could not resolve",
    "unable to access 'https?://",
    "Unable to connect",
  ].join("|"),
  "i",
);

export interface FailedRun {
  code: number | null;
  output: string;
  timedOut?: boolean;
  aborted?: boolean;
}

export function explainSandboxFailure(status: Pick<SandboxStatus, "mode" | "network" | "runner">, run: FailedRun): string | undefined {
  if (status.mode === "off" || !status.runner || run.code === 0 || run.timedOut || run.aborted) return undefined;
  const writeDenied = status.runner.kind === "sandbox-exec" ? _WRITE_DENIED_MAC : _WRITE_DENIED;
  if (writeDenied.test(run.output)) {
    return status.mode === "read-only"
      ? "the read-only sandbox refused a write: commands may write only in a private /tmp that is discarded afterwards"
      : "the workspace-write sandbox refused a write outside the workspace: commands may write only in the workspace and a private /tmp";
  }
  if (!status.network && _NETWORK_DOWN.test(run.output)) {
    return `the ${status.mode} sandbox has no network (config "sandbox.network" is off), so connections and name lookups fail`;
  }
  return undefined;
}
