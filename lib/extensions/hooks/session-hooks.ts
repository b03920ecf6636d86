/**
 * A session's hooks: for each event, the hooks whose matcher selects it run in parallel with
 * Claude Code's stdin JSON, and their verdicts (hook-output.ts) are combined into what the
 * session does next. Every run becomes a `hook` event (lib/events.ts): tool and Stop hooks return
 * theirs to the loop, which yields them; hooks outside a turn (SessionStart, SessionEnd,
 * PreCompact, Notification, UserPromptSubmit) push theirs to `outside`, which the run driver
 * empties into the stream. Nothing here throws for a broken hook: it becomes a notice.
 *
 * Combining: a PreToolUse block or deny from any hook refuses the call; else any `ask` asks,
 * else any `allow` allows; the last `updatedInput` (in configuration order) wins. Reasons, context
 * and feedback of several hooks are joined in configuration order.
 */
import type { HookEntry, HookEventName } from "../../config/hooks-config.ts";
import type { AgentEvent } from "../../events.ts";
import type { CommandSandbox } from "../../sandbox/session.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { hookMatches, readHookRun, type HookVerdict } from "./hook-output.ts";
import { redactText } from "../../secrets/redact.ts";

export interface SessionHooksOptions {
  entries: readonly HookEntry[];
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  projectRoot: string;
  sandbox?: CommandSandbox;
  /** Claude Code's `permission_mode`: `bypassPermissions` under --yolo, else `default`. */
  permissionMode: string;
  /** Where the events of hooks run outside a turn go; the run driver empties it into the stream. */
  outside: AgentEvent[];
}

/** A tool call as hooks see it: its id, its tool's declaration and its parsed arguments. */
export interface ToolHookCall {
  id: string;
  tool: ToolDefinition;
  input: unknown;
}

export interface PreToolOutcome {
  events: AgentEvent[];
  /** The call is refused; what the model reads. */
  refused?: string;
  /** The arguments to run instead (from `updatedInput`), not yet checked against the schema. */
  input?: unknown;
  permission?: "allow" | "ask";
  /** `continue: false`: the turn ends after this call; the stop reason. */
  stop?: string;
}

export interface PostToolOutcome {
  events: AgentEvent[];
  /** Text appended to the result the model reads (exit 2 stderr, `reason`, `additionalContext`). */
  feedback?: string;
  stop?: string;
}

export interface StopOutcome {
  events: AgentEvent[];
  /** The agent goes on: what the model is told (exit 2 stderr, `reason`). */
  block?: string;
}

export type SessionStartSource = "startup" | "resume" | "clear" | "compact";
export type SessionEndReason = "clear" | "logout" | "prompt_input_exit" | "other";

export interface SessionHooks {
  readonly entries: readonly HookEntry[];
  preToolUse(call: ToolHookCall, root: string, signal?: AbortSignal): Promise<PreToolOutcome>;
  postToolUse(call: ToolHookCall, output: string, root: string, signal?: AbortSignal): Promise<PostToolOutcome>;
  /** Stop (SubagentStop for a subagent's turn): `active` is Claude Code's `stop_hook_active`. */
  stop(end: { answer: string; active: boolean; subagent: boolean }, signal?: AbortSignal): Promise<StopOutcome>;
  /** Runs UserPromptSubmit; returns the refusal shown to the user, or undefined. Its context joins this turn's prompt. */
  userPromptSubmit(prompt: string): Promise<string | undefined>;
  /** `sink`: where its events go instead of `outside` (a compaction inside a turn returns them with its own). */
  sessionStart(source: SessionStartSource, sink?: AgentEvent[]): Promise<void>;
  sessionEnd(reason: SessionEndReason): Promise<void>;
  preCompact(trigger: "manual" | "auto", instructions?: string, sink?: AgentEvent[]): Promise<void>;
  notification(message: string, type: string): Promise<void>;
  /** The system prompt's section of hook context: SessionStart's, then this turn's UserPromptSubmit's ("" when none). */
  contextSection(): string;
}

interface _Ran {
  entry: HookEntry;
  verdict: HookVerdict;
}

const _LOGGED_CHARS = 2000;

export function createSessionHooks(options: SessionHooksOptions): SessionHooks {
  let sessionContext = "";
  let turnContext = "";

  const run = async (event: HookEventName, names: readonly string[] | undefined, fields: Record<string, unknown>, signal?: AbortSignal, tool?: string) => {
    const seen = new Set<string>();
    const selected = options.entries.filter((entry) => {
      if (entry.event !== event || (names && !hookMatches(entry.matcher, names))) return false;
      // Claude Code runs an identical command once per event, however many groups list it.
      if (seen.has(entry.command)) return false;
      seen.add(entry.command);
      return true;
    });
    if (selected.length === 0) return { events: [] as AgentEvent[], ran: [] as _Ran[] };
    const stdin = JSON.stringify({
      session_id: options.sessionId,
      transcript_path: options.transcriptPath,
      cwd: options.cwd,
      permission_mode: options.permissionMode,
      hook_event_name: event,
      ...fields,
    });
    // The process runner loads with the first hook that runs: a session without hooks never loads it.
    const { runHookProcess } = await import("./hook-process.ts");
    const ran = await Promise.all(
      selected.map(async (entry) => {
        const result = await runHookProcess(entry.command, stdin, entry.timeoutSec * 1000, {
          cwd: options.cwd,
          projectRoot: options.projectRoot,
          sandbox: options.sandbox,
          signal,
        });
        return { entry, result, verdict: readHookRun(event, result, entry.command) };
      }),
    );
    const events: AgentEvent[] = [];
    for (const { entry, result, verdict } of ran) {
      const decision = verdict.block !== undefined ? "block" : (verdict.permission ?? (verdict.stop !== undefined ? "stop" : undefined));
      events.push({
        type: "hook",
        event,
        command: entry.command,
        source: entry.source,
        exit: result.exit,
        durationMs: result.durationMs,
        ...(decision ? { decision } : {}),
        ...(result.timedOut ? { timedOut: true as const } : {}),
        ...(tool ? { tool } : {}),
        ...(verdict.logged ? { output: redactText(verdict.logged).text.slice(0, _LOGGED_CHARS) } : {}),
      });
      if (verdict.notice) events.push({ type: "notice", text: verdict.notice });
    }
    return { events, ran: ran as _Ran[] };
  };

  const outside = async (event: HookEventName, names: readonly string[] | undefined, fields: Record<string, unknown>, sink = options.outside) => {
    const { events, ran } = await run(event, names, fields);
    sink.push(...events);
    return ran;
  };

  return {
    entries: options.entries,
    async preToolUse(call, root, signal) {
      const counterpart = call.tool.claudeCode;
      const { events, ran } = await run("PreToolUse", _toolNames(call.tool), _toolFields(call, root), signal, call.tool.name);
      const refusals = ran.flatMap(({ verdict }) =>
        verdict.block !== undefined ? [verdict.block] : verdict.permission === "deny" ? [verdict.permissionReason ?? "no reason given"] : [],
      );
      const stop = ran.find(({ verdict }) => verdict.stop !== undefined)?.verdict.stop;
      if (refusals.length > 0) return { events, refused: `Refused by a PreToolUse hook: ${refusals.join("\n")}`, ...(stop ? { stop } : {}) };
      // `continue: false` wins over any decision: the call does not run, and the turn ends.
      if (stop !== undefined) return { events, refused: "Not run: a PreToolUse hook stopped the turn.", stop };
      const updated = ran.filter(({ verdict }) => verdict.updatedInput).at(-1)?.verdict.updatedInput;
      const base = (call.input ?? {}) as Record<string, unknown>;
      const input = updated
        ? counterpart
          ? { ...base, ...counterpart.args({ ...counterpart.input(call.input, root), ...updated }) }
          : { ...base, ...updated }
        : undefined;
      const permission = ran.some(({ verdict }) => verdict.permission === "ask")
        ? "ask"
        : ran.some(({ verdict }) => verdict.permission === "allow")
          ? "allow"
          : undefined;
      return { events, ...(input ? { input } : {}), ...(permission ? { permission } : {}), ...(stop ? { stop } : {}) };
    },
    async postToolUse(call, output, root, signal) {
      const response = call.tool.claudeCode?.response?.(output, call.input, root) ?? { output };
      const { events, ran } = await run("PostToolUse", _toolNames(call.tool), { ..._toolFields(call, root), tool_response: response }, signal, call.tool.name);
      const feedback = ran.flatMap(({ verdict }) => [verdict.block, verdict.context].filter((text): text is string => text !== undefined));
      const stop = ran.find(({ verdict }) => verdict.stop !== undefined)?.verdict.stop;
      return { events, ...(feedback.length > 0 ? { feedback: `PostToolUse hook: ${feedback.join("\n")}` } : {}), ...(stop ? { stop } : {}) };
    },
    async stop(end, signal) {
      const event = end.subagent ? "SubagentStop" : "Stop";
      const { events, ran } = await run(event, undefined, { stop_hook_active: end.active, last_assistant_message: end.answer }, signal);
      // `continue: false` ends the turn, which is stopping anyway: only a block goes on.
      if (ran.some(({ verdict }) => verdict.stop !== undefined)) return { events };
      const reasons = ran.flatMap(({ verdict }) => (verdict.block !== undefined ? [verdict.block] : []));
      return { events, ...(reasons.length > 0 ? { block: `${event} hook feedback:\n${reasons.join("\n")}` } : {}) };
    },
    async userPromptSubmit(prompt) {
      turnContext = "";
      const ran = await outside("UserPromptSubmit", undefined, { prompt });
      const refusals = ran.flatMap(({ verdict }) => [verdict.block, verdict.stop].filter((text): text is string => text !== undefined));
      if (refusals.length > 0) return `A UserPromptSubmit hook refused the prompt: ${refusals.join("\n")}`;
      turnContext = _joinContext(ran);
      return undefined;
    },
    async sessionStart(source, sink) {
      const ran = await outside("SessionStart", [source], { source }, sink);
      // Where no hook answers this source (a `startup` hook after a compaction), the context stays.
      if (ran.length > 0) sessionContext = _joinContext(ran);
    },
    async sessionEnd(reason) {
      await outside("SessionEnd", [reason], { reason });
    },
    async preCompact(trigger, instructions, sink) {
      await outside("PreCompact", [trigger], { trigger, custom_instructions: instructions ?? "" }, sink);
    },
    async notification(message, type) {
      await outside("Notification", [type], { message, notification_type: type });
    },
    contextSection() {
      const parts = [sessionContext, turnContext].filter((text) => text !== "");
      return parts.length > 0 ? `# Context from hooks\n\n${parts.join("\n\n")}` : "";
    },
  };
}

/** The names a tool event's matcher is tried against: Claude Code's, then shiro's own. */
function _toolNames(tool: ToolDefinition): string[] {
  return tool.claudeCode && tool.claudeCode.name !== tool.name ? [tool.claudeCode.name, tool.name] : [tool.name];
}

function _toolFields(call: ToolHookCall, root: string): Record<string, unknown> {
  const counterpart = call.tool.claudeCode;
  return {
    tool_name: counterpart?.name ?? call.tool.name,
    tool_input: counterpart ? counterpart.input(call.input, root) : call.input,
    tool_use_id: call.id,
    shiro_tool_name: call.tool.name,
    shiro_tool_input: call.input,
  };
}

function _joinContext(ran: readonly _Ran[]): string {
  return ran.flatMap(({ verdict }) => (verdict.context ? [verdict.context] : [])).join("\n\n");
}
