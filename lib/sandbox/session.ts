/**
 * A session's sandbox for subprocesses: wraps an argv so it runs confined, explains a failure
 * the sandbox caused, and asks whether one command may run outside it.
 *
 * Leaving the sandbox is an approval like any other, but stricter than the gate: `--yolo` never
 * answers it, and a headless run never leaves (nobody can be asked, and a blocked run cannot
 * suspend in the middle of a command). "always" records an in-memory grant of the suggested
 * pattern (`git *`): later commands it covers run outside the sandbox at once, for this session.
 * Like every bash grant it never covers a command that chains, pipes, redirects or substitutes.
 */
import { workspaceExtraDirs } from "../platform/workspace-dirs.ts";
import { mkdtempSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { uuidv7 } from "../platform/ids.ts";
import { createSessionGrants, suggestPattern } from "../approval/rules.ts";
import type { ApprovalRequest, DecisionSource } from "../approval/request.ts";
import { buildBwrapArgv } from "./bwrap.ts";
import type { SandboxStatus } from "./detect.ts";
import type { FailedRun } from "./explain.ts";
import { describeNewRepository, removePlantedCommondirs, scanWorkspaceGit, type WorkspaceGit } from "./git-mounts.ts";
import { hiddenPathList, resolveHiddenPaths } from "./hidden-paths.ts";
import { buildSeatbeltArgv } from "./seatbelt.ts";
import { filterReachableBy, seccompFilterFile } from "./seccomp.ts";
import { nodeOs } from "../platform/runtime.ts";

export interface OutsideRequest {
  callId: string;
  /** The exec tool that ran it, and the call's input (what the question shows). */
  tool: string;
  input: unknown;
  command: string;
  /** What the sandbox refused (explainSandboxFailure). */
  reason: string;
  cwd: string;
}

export interface OutsideVerdict {
  allowed: boolean;
  /** One line for the tool result: who decided and why. */
  note: string;
}

export interface CommandSandbox {
  /** The session's sandbox; decided (the runner probed, lib/sandbox/detect.ts) the first time it is read. */
  readonly status: SandboxStatus;
  /** True when `tool`'s `command` runs confined: the sandbox is on and no "always" grant covers it. Throws the refusal of a sandbox config asked for but could not get. */
  confines(tool: string, command: string): boolean;
  /** The argv that runs `argv` confined in `root` (as is when the sandbox is off). Throws the refusal, like `confines`. */
  wrap(argv: readonly string[], root: string): string[];
  /**
   * After a confined command in `root`: undoes what the mounts cannot prevent (a planted
   * `commondir`) and reports a `.git` made this session that holds hooks or program-naming config
   * (once); the `sandbox:` lines' text, or undefined.
   */
  afterCommand(root: string): string | undefined;
  /** Why a confined run failed because of the sandbox, or undefined. Loads what explains it on first use: a session whose commands all succeed never does. */
  explain(run: FailedRun): Promise<string | undefined>;
  /** Asks whether this one command may run again outside the sandbox. */
  askOutside(request: OutsideRequest): Promise<OutsideVerdict>;
}

export const HEADLESS_STAYS_INSIDE =
  "Not run outside the sandbox: a headless run never leaves it. Tell the user what failed; they can run the command themselves or restart shiro with --no-sandbox.";
export const USER_KEPT_INSIDE = "Not run outside the sandbox: the user declined.";

export interface CommandSandboxOptions {
  /** The person answering approval questions; undefined in headless runs. */
  decide?: DecisionSource;
  sessionId?: string;
  /** Config `sandbox.hidePaths`: hidden beside the defaults (hidden-paths.ts). */
  hidePaths?: readonly string[];
}

/**
 * `decide` is the status itself, or what decides it: then it is called once, when the first command,
 * hook or sandboxed server needs it, so a session that runs none never probes the runner.
 */
export function createCommandSandbox(decide: SandboxStatus | (() => SandboxStatus), options: CommandSandboxOptions = {}): CommandSandbox {
  let decided = typeof decide === "function" ? undefined : decide;
  const current = () => (decided ??= (decide as () => SandboxStatus)());
  const grants = createSessionGrants();
  let privateTmp: string | undefined;
  const hidden = hiddenPathList(options.hidePaths);
  // The workspace's git dirs as they were before the first command of the session ran in it.
  const scans = new Map<string, WorkspaceGit>();
  const pending: string[] = [];
  const reported = new Set<string>();
  const scanOf = (root: string) => {
    let scan = scans.get(root);
    if (!scan) scans.set(root, (scan = scanWorkspaceGit(root)));
    return scan;
  };
  return {
    get status() {
      return current();
    },
    confines(tool, command) {
      const status = current();
      if (status.refusal) throw new Error(status.refusal);
      return status.mode !== "off" && !grants.covers(tool, [command], true);
    },
    wrap(argv, root) {
      const status = current();
      if (status.refusal) throw new Error(status.refusal);
      const runner = status.runner;
      if (status.mode === "off" || !runner) return [...argv];
      const policy = { mode: status.mode, network: status.network, hide: resolveHiddenPaths(hidden, root), extraDirs: workspaceExtraDirs(root) };
      // A hook or MCP server run since the last bash command gets no clean-up of its own: this is it.
      if (status.mode === "workspace-write") pending.push(...removePlantedCommondirs(_real(root), scanOf(root)));
      const git = status.mode === "workspace-write" ? { git: scanOf(root) } : {};
      if (runner.kind === "bwrap") {
        const seccompFile = seccompFilterFile();
        if (seccompFile && filterReachableBy(_real(seccompFile), [_real(root), ...policy.extraDirs.map(_real)], policy.hide))
          throw new Error(
            `sandbox: the seccomp filter ${seccompFile} is in a folder this command may write; move the state folder (SHIRO_HOME) out of the workspace`,
          );
        return buildBwrapArgv(runner.path, { ...policy, seccompFile, ...git }, root, argv);
      }
      privateTmp ??= mkdtempSync(join(nodeOs().tmpdir(), "shiro-sandbox-"));
      return buildSeatbeltArgv(runner.path, policy, root, privateTmp, argv);
    },
    afterCommand(root) {
      const status = current();
      if (status.mode !== "workspace-write" || !status.runner) return undefined;
      const removed = [...pending.splice(0), ...removePlantedCommondirs(_real(root), scanOf(root))];
      const notes = removed.length ? [`removed ${removed.join(", ")}: a sandboxed command wrote it to send git to another repository's config`] : [];
      const created = describeNewRepository(_real(root), scanOf(root));
      if (created && !reported.has(created)) {
        reported.add(created);
        notes.push(created);
      }
      return notes.length ? notes.join(".\nsandbox: ") : undefined;
    },
    explain: async (run) => (await import("./explain.ts")).explainSandboxFailure(current(), run),
    async askOutside(request) {
      if (!options.decide) return { allowed: false, note: HEADLESS_STAYS_INSIDE };
      const asked: ApprovalRequest = {
        id: uuidv7(),
        callId: request.callId,
        tool: request.tool,
        input: request.input,
        preview: { kind: "command", command: request.command },
        subjects: [request.command],
        subject: request.command,
        repeated: false,
        suggestedPattern: suggestPattern(request.command),
        cwd: request.cwd,
        sandbox: request.reason,
        ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      };
      let answer: Awaited<ReturnType<DecisionSource>>;
      try {
        answer = await options.decide(asked);
      } catch {
        answer = "deny";
      }
      if (answer === "always") grants.add(request.tool, asked.suggestedPattern);
      if (answer === "once" || answer === "always")
        return { allowed: true, note: "Ran outside the sandbox: the user approved it after the sandboxed attempt failed." };
      return { allowed: false, note: USER_KEPT_INSIDE };
    },
  };
}

function _real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
