/**
 * Where the session's commands run: the sandbox mode in force (config `sandbox`, `--no-sandbox`,
 * the runner found on this machine; its notice when it falls short) and the command sandbox that
 * confines every `exec` tool, the plugins' subprocesses, the hooks and (when asked) MCP servers.
 */
import type { AgentFlags } from "../../config/flags.ts";
import type { ResolvedConfig } from "../../config/config.ts";
import type { DecisionSource } from "../../approval/request.ts";
import type { StartupNotice } from "../../notices.ts";
import { detectSandbox, type SandboxStatus } from "../../sandbox/detect.ts";
import { createCommandSandbox, type CommandSandbox } from "../../sandbox/session.ts";

export interface SandboxPart {
  status: SandboxStatus;
  sandbox: CommandSandbox;
}

export interface SandboxPartOptions {
  config: Pick<ResolvedConfig, "file">;
  flags: Pick<AgentFlags, "noSandbox">;
  env?: NodeJS.ProcessEnv;
  /** Who answers "run it again outside the sandbox?"; without one the command stays inside. */
  decide?: DecisionSource;
  sessionId: string;
}

export function openSandboxPart(options: SandboxPartOptions, notices: StartupNotice[]): SandboxPart {
  const { config } = options;
  const status = detectSandbox({ config: config.file.sandbox, noSandbox: options.flags.noSandbox, env: options.env });
  if (status.notice) notices.push({ code: "sandbox", text: status.notice });
  const sandbox = createCommandSandbox(status, {
    decide: options.decide,
    sessionId: options.sessionId,
    hidePaths: typeof config.file.sandbox === "object" ? config.file.sandbox.hidePaths : undefined,
  });
  return { status, sandbox };
}
