/**
 * Where the session's commands run: the sandbox mode in force (config `sandbox`, `--no-sandbox`,
 * the runner found on this machine; its notice when it falls short) and the command sandbox that
 * confines every `exec` tool, the plugins' subprocesses, the hooks and (when asked) MCP servers.
 * The mode is decided when something first needs it (a command, a hook, a sandboxed server, the
 * REPL banner reading `status`), never before the first request: a plain answer probes nothing.
 * Its notice goes to `notice` then: a start-up notice while those are unread, else a run event.
 */
import type { AgentFlags } from "../../config/flags.ts";
import type { ResolvedConfig } from "../../config/config.ts";
import type { DecisionSource } from "../../approval/request.ts";
import { detectSandbox, type SandboxStatus } from "../../sandbox/detect.ts";
import { createCommandSandbox, type CommandSandbox } from "../../sandbox/session.ts";

export interface SandboxPart {
  /** Reading it decides the mode (lib/sandbox/detect.ts probes the runner unless an earlier run's outcome holds). */
  readonly status: SandboxStatus;
  sandbox: CommandSandbox;
  /** Config `sandbox.mcp`, known without deciding the mode. */
  mcp: boolean;
}

export interface SandboxPartOptions {
  config: Pick<ResolvedConfig, "file">;
  flags: Pick<AgentFlags, "noSandbox">;
  env?: NodeJS.ProcessEnv;
  /** Who answers "run it again outside the sandbox?"; without one the command stays inside. */
  decide?: DecisionSource;
  sessionId: string;
}

export function openSandboxPart(options: SandboxPartOptions, notice: (text: string) => void): SandboxPart {
  const { config } = options;
  const sandbox = createCommandSandbox(
    () => {
      const status = detectSandbox({ config: config.file.sandbox, noSandbox: options.flags.noSandbox, env: options.env });
      if (status.notice) notice(status.notice);
      return status;
    },
    {
      decide: options.decide,
      sessionId: options.sessionId,
      hidePaths: typeof config.file.sandbox === "object" ? config.file.sandbox.hidePaths : undefined,
    },
  );
  return {
    get status() {
      return sandbox.status;
    },
    sandbox,
    mcp: typeof config.file.sandbox === "object" && config.file.sandbox.mcp === true,
  };
}
