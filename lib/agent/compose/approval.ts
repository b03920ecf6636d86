/**
 * Whether a call runs: the permission rules (config `permission`, MCP servers' `alwaysAllow`,
 * trusted Claude Code permissions, the run's `--allowed-tools` / `--disallowed-tools`, and each
 * tool's declared `decision` as its default), who answers a question (the front end, headless
 * `--approvals block`'s persisted request, or nobody), and the one gate of the session over both.
 * "Always" grants last until exit; the loop resets the repeat guard each turn. Tools made after
 * the rules (session, plugin, `load_tools`) join them through `addDeclaredDefaults`.
 */
import type { AgentFlags } from "../../config/flags.ts";
import type { ResolvedConfig } from "../../config/config.ts";
import type { DecisionSource } from "../../approval/request.ts";
import { defaultPermission, parsePermissionRules, type PermissionRules } from "../../approval/rules.ts";
import type { PluginHost } from "../../extension-api/plugin-api.ts";
import { createGate, type Gate, type GateOptions } from "../../extensions/gate.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import type { RunScope } from "../run-scope.ts";
import type { McpConnection } from "../session-extensions.ts";
import type { SessionSettings } from "../session-settings.ts";

export interface ApprovalPart {
  rules: PermissionRules;
  gate: Gate;
}

export interface ApprovalPartOptions {
  headless: boolean;
  flags: Pick<AgentFlags, "approvals" | "yolo">;
  config: Pick<ResolvedConfig, "file">;
  /** The front end's question (the REPL prompt, an editor's); absent headless. */
  decide?: DecisionSource;
  /** The tools the rules are mapped onto (the built-in ones); their declared decisions are the defaults. */
  tools: readonly ToolDefinition[];
  scope: Pick<RunScope, "permissionLayers">;
  settings: Pick<SessionSettings, "permissionLayers" | "decider">;
  mcp: Pick<McpConnection, "permissionLayers">;
  plugins: PluginHost;
  sessionId: string;
  /** The run active when a blocked question is persisted. */
  runId: () => string;
  /** The current turn's allow rules (a custom command's allowed-tools, turn-tools.ts). */
  turnRules?: GateOptions["turnRules"];
}

export function openApprovalPart(options: ApprovalPartOptions): ApprovalPart {
  const { headless, flags, config, tools } = options;
  const blocking = headless && flags.approvals === "block" ? { runId: options.runId, sessionId: options.sessionId } : undefined;
  const decide = options.settings.decider(options.decide, blocking);
  const layers = [...options.mcp.permissionLayers(), ...options.settings.permissionLayers(tools), ...options.scope.permissionLayers(tools)];
  const rules = parsePermissionRules(config.file.permission, defaultPermission(tools), layers);
  const gate = createGate({
    rules,
    plugins: options.plugins,
    yolo: flags.yolo === true,
    decide,
    allowReadOnly: config.file.readOnlyCommands !== "ask",
    headless: headless && !options.decide,
    sessionId: options.sessionId,
    turnRules: options.turnRules,
  });
  return { rules, gate };
}
