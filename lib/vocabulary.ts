/**
 * The words shiro's surfaces share, declared once: agent variants, thinking levels, tool sets,
 * the `--protocol` spellings and the headless approvals policies. Flags, config validation,
 * slash commands, the tool registry and the providers all read them from here.
 */
export const AGENT_NAMES = ["default", "quick", "deep", "plan", "review"] as const;
export const THINKING_LEVELS = ["off", "low", "medium", "high", "max"] as const;
export const TOOL_SET_NAMES = ["core", "edit-plus", "git", "net"] as const;
/** What `--protocol` accepts (lib/providers/presets.ts maps each to its wire protocol). */
export const PROTOCOL_FLAGS = ["chat", "responses", "anthropic"] as const;
/** Headless policy for calls that would ask: deny them, or block the run on a persisted approval. */
export const APPROVAL_MODES = ["deny", "block"] as const;

export type AgentName = (typeof AGENT_NAMES)[number];
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];
export type ToolSetName = (typeof TOOL_SET_NAMES)[number];
export type ProtocolFlag = (typeof PROTOCOL_FLAGS)[number];
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
