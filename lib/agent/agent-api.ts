/**
 * What an agent session is to its front ends: the options `createAgent` (agent.ts) takes and the
 * `Agent` it returns. Kept apart from the wiring so front ends and tests read the contract alone.
 */
import type { ResolvedConfig } from "../config/config.ts";
import type { AgentFlags } from "../config/flags.ts";
import type { DecisionSource } from "../approval/request.ts";
import type { PermissionRules } from "../approval/rules.ts";
import type { AgentEvent } from "../events.ts";
import type { ReadJudgement } from "../extensions/gate.ts";
import type { McpServerStatus } from "../extensions/mcp/hub.ts";
import type { PluginHost } from "../extension-api/plugin-api.ts";
import type { Todo } from "../notebook.ts";
import type { SandboxStatus } from "../sandbox/detect.ts";
import type { Skill } from "../skills/skills.ts";
import type { MemoryStore } from "../store/memory.ts";
import type { RunSnapshot } from "../store/runs.ts";
import type { SessionRecord } from "../store/session-record.ts";
import type { StartupNotice } from "../notices.ts";
import type { AskUser } from "../tools/ask.ts";
import type { ToolDefinition } from "../tools/types.ts";
import type { AgentName, ThinkingLevel } from "../vocabulary.ts";
import type { InstructionFile } from "./instructions.ts";
import type { SessionMemory } from "./memory-session.ts";
import type { RunStartOptions } from "./run-driver.ts";
import type { TurnOptions } from "./turn-tools.ts";
import type { EditorConnection } from "./session-extensions.ts";
import type { SessionEndReason, SessionHooks, SessionStartSource } from "./session-settings.ts";
import type { AgentVariant } from "./variants.ts";

export interface CreateAgentOptions {
  cwd: string;
  flags: AgentFlags;
  mode: "headless" | "interactive";
  /** Run id of the first turn (detached runs are given theirs by the parent). */
  runId?: string;
  detached?: boolean;
  /** Interactive approval prompt; headless uses the --approvals policy. */
  decide?: DecisionSource;
  /** Someone to answer the `ask` tool (the REPL); without it the tool is withheld. */
  askUser?: AskUser;
  /** Continue exactly this session (used by `shiro runs resume`). */
  sessionId?: string;
  /** Why this session opens, for SessionStart hooks: `clear` after /clear; default startup (or resume). */
  sessionSource?: SessionStartSource;
  env?: NodeJS.ProcessEnv;
  /** Where the session's own lines go (a plugin's bell, an episode not written): the front end's one writer (lib/ui/output.ts). */
  writeStderr: (text: string) => void;
  /** Called once, with the session's id, when the answer to its first model request begins (its first event): work that must not delay sending it. */
  afterFirstRequest?: (sessionId: string) => void;
  editor?: EditorConnection;
}

/** What the REPL may switch mid-session (`/agent`, `/think`, `/model`). */
export interface AgentModeChange {
  agent?: AgentName;
  thinking?: ThinkingLevel;
  model?: string;
}

export interface Agent {
  readonly config: ResolvedConfig;
  readonly variant: AgentVariant;
  readonly thinking: ThinkingLevel;
  readonly model: string;
  /** Switches variant, thinking level or model for the next turns. A new variant resets thinking to its own unless given. */
  configure(change: AgentModeChange): void;
  /** One tool-less model call with this session's client (compaction, memory, commit messages). */
  complete(system: string, prompt: string, signal?: AbortSignal): Promise<string>;
  readonly session: SessionRecord;
  readonly memory?: MemoryStore;
  /** Every memory scope and what the current prompt carries (absent with --no-memory). */
  readonly memoryScopes?: SessionMemory;
  readonly plugins: PluginHost;
  /**
   * Where shell commands run: the sandbox mode in force and why (`shiro sandbox` prints the same).
   * Reading it decides the sandbox (probing the runner unless an earlier run's outcome holds); a
   * session that runs no command and never reads it probes nothing.
   */
  readonly sandbox: SandboxStatus;
  readonly instructions: InstructionFile[];
  /** User hooks of this session (absent with --no-hooks or none configured; docs/hooks.md). */
  readonly hooks?: SessionHooks;
  /** Skills loaded for this session (none with --no-skills). */
  readonly skills: readonly Skill[];
  /** Messages restored from an earlier session (0 for a new one). */
  readonly resumedMessages: number;
  /** What wiring found worth telling (resume notes, skipped files, the approvals policy), as data. */
  startupNotices(): readonly StartupNotice[];
  offeredTools(): ToolDefinition[];
  registeredTools(): ToolDefinition[];
  /** The session's permission rules, every source (lib/approval/rules.ts): what a rule about to be saved is checked against. */
  permissionRules(): PermissionRules;
  todos(): Todo[];
  /** One turn as a run; `notices` (worded start-up notices) follow its `run-start`. */
  turn(prompt: string, signal: AbortSignal, options?: TurnOptions): AsyncGenerator<AgentEvent, void, undefined>;
  /** Continues a blocked run after its approval was decided. */
  resumeRun(run: RunSnapshot, decision: "approved" | "denied", signal: AbortSignal, options?: RunStartOptions): AsyncGenerator<AgentEvent, void, undefined>;
  /**
   * The read permission for a prompt's `@path` (a workspace path): judged by this session's gate
   * as the call of the first `read` tool that declares `pathInput` (read_file), so every rule
   * the read tool meets (config, trusted settings, MCP, the run's flags) and guard plugins apply.
   */
  judgeAttachment(path: string): Promise<ReadJudgement>;
  /** `!cmd`: a shell command the user runs, through this session's gate and sandbox (lib/agent/user-command.ts). */
  runCommand(command: string, signal: AbortSignal, onOutput: (chunk: string) => void, confirmGuard?: (finding: string) => Promise<boolean>): Promise<string>;
  /** Saves now (e.g. `/save`). */
  save(): void;
  /** MCP servers of this session, their state, the prompts each lists and the file each comes from (empty with --no-mcp or none configured). */
  mcpStatus(): (McpServerStatus & { source?: string })[];
  /** Flushes the session and releases its lease (SessionEnd hooks get `reason`, default other); returns the session id when anything was saved. */
  close(reason?: SessionEndReason): string | undefined;
  /** Settles once everything `close` started (MCP servers stopping) is done. */
  readonly closed: Promise<void>;
}
