/**
 * The approval gate: the one decision API every front end uses (REPL prompt, headless policy,
 * worker subagents, tests). A call the gate does not allow never reaches its tool.
 *
 * Order per call:
 * 0. A `write` tool's declared path inside a git dir, or `.git` itself, is refused, always
 *    (`gitDirRefusal`, lib/tools/jail.ts): no rule, grant, hook or --yolo lets it through, and
 *    the tool's own jail refuses it again.
 * 1. Plugin guards (`beforeToolCall`): the first block wins; --yolo cannot skip them. A guard's
 *    question (`{ ask }`, the guard plugin's "cannot tell what this runs") is put after a deny
 *    rule had its say; neither allow rules, grants nor --yolo skip it, and "always" answers it once.
 * 2. Permission rules, every source at once (config, trusted settings files, `alwaysAllow`, the
 *    run's flags, and the turn's `turnRules`: a custom command's allowed-tools,
 *    lib/agent/turn-tools.ts), decided by evaluatePermission (lib/approval/rules.ts): a deny
 *    anywhere wins, then an ask anywhere, then allow. Deny refuses with the rule's message; allow
 *    passes unless the repeat guard asks (third identical call of the turn, and later ones). A
 *    call the user typed (`byUser`, the REPL's `!cmd`) is allowed here: nobody asks the user
 *    about their own command.
 * 3. A read of a path the secrets classifier flags (lib/secrets/classify.ts) asks, unless one of
 *    the user's rules allows that path by name; neither grants nor --yolo skip this question,
 *    and "always" answers it once. Tools that declare `secretPaths: "skip"` leave such files out
 *    themselves instead.
 * 4. Session grants ("always" answers) allow what they cover; never a denied call (they answer a
 *    question, and a denied call asks none), never a repeated call, and never a
 *    call that names a path the classifier flags (a declared path, or a word of a bash command:
 *    `cat *` granted for `cat README.md` still asks for `cat ~/.ssh/id_rsa`). Such a question says
 *    why, and its "always" grants nothing.
 * 5. --yolo turns every remaining ask into allow; a deny stays a deny.
 * 6. `decide` answers: once, always (records a grant), deny, or block (the run suspends on a
 *    persisted request). Questions are put one at a time, so an "always" given to one call
 *    covers an identical call that was waiting behind it.
 */
import { uuidv7 } from "../platform/ids.ts";
import { join, resolve } from "node:path";
import { REPEAT_ASK_AT, createRepeatGuard } from "../approval/repeat-guard.ts";
import {
  allowsExplicitly,
  callSubjects,
  createSessionGrants,
  describeRefusal,
  evaluatePermission,
  normalizeRulePath,
  type RuleLayer,
  suggestPattern,
  type PermissionMatch,
  type PermissionRules,
  type SessionGrants,
} from "../approval/rules.ts";
import type { ApprovalAnswer, ApprovalRequest, DecisionSource } from "../approval/request.ts";
import { classifySecretFile, classifySecretPath } from "../secrets/classify.ts";
import type { PluginHost } from "../extension-api/plugin-api.ts";
import { loadShellReader } from "../shell/reader.ts";
import { createPending } from "../store/approvals.ts";
import { previewCall } from "../tools/call-preview.ts";
import { gitDirRefusal } from "../tools/jail.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { homeDirectory } from "../platform/runtime.ts";

/** `asked` is present when `decide` was consulted, so front ends can show the question. */
export type GateResult =
  | { allowed: true; asked?: ApprovalRequest; secretsAllowed?: true }
  | { allowed: false; by: "plugin" | "rule" | "user" | "headless"; reason: string; asked?: ApprovalRequest }
  | { allowed: false; by: "block"; request: ApprovalRequest };

export interface GateCall {
  callId: string;
  tool: ToolDefinition | undefined;
  name: string;
  input: unknown;
  cwd: string;
  subagent?: boolean;
  /**
   * A PreToolUse hook's permission decision (lib/extensions/hooks/): `allow` answers the question
   * the call would be asked, `ask` asks even where rules allow (--yolo included). Neither passes a
   * guard plugin's refusal or question, a deny rule or the secrets question. A hook's `deny` never gets here.
   */
  hook?: "allow" | "ask";
  /** The user typed this call (`!cmd`): nothing is asked; deny rules and plugin guards still answer. */
  byUser?: boolean;
  /** Set when a checkpoint covers what the call changes in the workspace: guards see it (a delete it can take back is a question). */
  checkpoint?: { maxFileBytes: number };
}

export interface GateOptions {
  rules: PermissionRules;
  plugins: PluginHost;
  yolo: boolean;
  decide: DecisionSource;
  /** Calls their tool declares `readOnly` run without the default question (config `readOnlyCommands`); default true. */
  allowReadOnly?: boolean;
  /** A "deny" from `decide` means nobody could be asked: reported as `headless`. */
  headless?: boolean;
  runId?: string;
  sessionId?: string;
  /** The current turn's own allow rules (a custom command's pre-approved allowed-tools), read per call; a source like any other. */
  turnRules?: () => RuleLayer | undefined;
}

export interface Gate {
  check(call: GateCall): Promise<GateResult>;
  /** Starts a new turn: the repeat guard forgets its counts. Grants stay. */
  newTurn(): void;
  /**
   * True when a rule denies `tool` the workspace path `path` (any spelling): for tools that find
   * files themselves (grep), so what they find meets the same rules a named path would.
   */
  deniesPath?(tool: string, path: string, cwd: string): boolean;
  /**
   * How a call the user asked for without running it (a prompt's `@path`, read as the call
   * `tool.pathInput` gives) meets the rules and guard plugins: judged like a `byUser` call, so a
   * deny rule or a plugin's refusal refuses it and nothing else asks; a plugin's question is
   * returned for the front end to put.
   */
  judgeRead(tool: ToolDefinition, input: unknown, cwd: string): Promise<ReadJudgement>;
  readonly grants: SessionGrants;
}

/** What `Gate.judgeRead` found. */
export interface ReadJudgement {
  /** The refusal (a deny rule, a guard plugin); absent when the file may be read. */
  denied?: string;
  /** A guard plugin's question, to be answered yes before the file is read. */
  question?: string;
  /** True when rules naming each path allow it: a possible secret there is read without the secrets question, as read tools' calls are. */
  secretAllowed: boolean;
}

export const USER_DENIED_REASON = "User denied this tool call.";

/** What the model reads when the user denied a call and said why. */
export function userDeniedWith(sentence: string): string {
  const said = sentence.trim();
  return said ? `${USER_DENIED_REASON} The user said: ${said}` : USER_DENIED_REASON;
}

/** What the model reads when a headless run refuses a read of a possible secret. */
export function describeSecretRefusal(secret: { path: string; why: string }, tool: string): string {
  return `Denied: ${secret.path} may hold secrets (${secret.why}) and nobody can be asked in a headless run. Ask the user to share what you need, or to allow it with a permission rule naming the path (permission.${tool}).`;
}
/** What the model reads when a headless run refuses a call a plugin guard asks about. */
export function describePluginRefusal(question: string): string {
  return `Denied: nobody can be asked in a headless run. ${question}`;
}
export const HEADLESS_DENIED_REASON = "Denied: this call needs approval, and a headless run without --yolo has nobody to give it.";

/** The decision source of a headless run without --yolo: nobody can answer, so every question is denied. */
export const denyAll: DecisionSource = async () => "deny";

export function createGate(options: GateOptions): Gate {
  const grants = createSessionGrants();
  const repeats = createRepeatGuard();
  let queue: Promise<unknown> = Promise.resolve();

  const ask = (
    call: GateCall,
    subjects: string[],
    repeated: boolean,
    matched: PermissionMatch | undefined,
    secret?: { path: string; why: string },
    plugin?: string,
  ): Promise<GateResult> => {
    const once = secret !== undefined || plugin !== undefined;
    const run = async (): Promise<GateResult> => {
      const shell = call.tool?.command !== undefined;
      // A hook that asks for a question gets one: no "always" answer stands in for it.
      if (!repeated && !once && call.hook !== "ask" && grants.covers(call.name, subjects, shell)) return { allowed: true };
      const preview = previewCall(call.tool, call.input);
      const request: ApprovalRequest = {
        id: uuidv7(),
        callId: call.callId,
        tool: call.name,
        ...(call.tool?.effect ? { effect: call.tool.effect } : {}),
        input: call.input,
        ...(preview ? { preview } : {}),
        subjects,
        subject: _subjectLine(call, subjects),
        repeated,
        matched,
        suggestedPattern: suggestPattern(_commandOf(call)),
        cwd: call.cwd,
        ...(call.subagent ? { subagent: true } : {}),
        ...(secret ? { secret } : {}),
        ...(plugin ? { plugin } : {}),
        ...(options.runId ? { runId: options.runId } : {}),
        ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      };
      let answer: ApprovalAnswer | "block";
      try {
        answer = await options.decide(request);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return { allowed: false, by: "user", reason: `Refused: the approval question failed (${why}).`, asked: request };
      }
      if (answer === "block") return { allowed: false, by: "block", request };
      if (answer === "always" && !once) grants.add(call.name, request.suggestedPattern);
      if (answer === "once" || answer === "always") return { allowed: true, asked: request, ...(secret ? { secretsAllowed: true as const } : {}) };
      if (options.headless) {
        const reason = secret ? describeSecretRefusal(secret, call.name) : plugin ? describePluginRefusal(plugin) : HEADLESS_DENIED_REASON;
        return { allowed: false, by: "headless", reason, asked: request };
      }
      return { allowed: false, by: "user", reason: typeof answer === "object" ? userDeniedWith(answer.deny) : USER_DENIED_REASON, asked: request };
    };
    const result = queue.then(run);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    grants,
    newTurn: () => repeats.reset(),
    deniesPath: (tool, path, cwd) => evaluatePermission(options.rules, tool, [normalizeRulePath(path, cwd)]).decision === "deny",
    async judgeRead(tool, input, cwd) {
      if (tool.command !== undefined) await loadShellReader();
      const { subjects, paths } = callSubjects(tool, input, cwd);
      const blocked = await options.plugins.checkToolCall({ toolName: tool.name, input, cwd, effect: tool.effect, paths });
      if (typeof blocked === "string") return { denied: blocked, secretAllowed: false };
      const verdict = evaluatePermission(options.rules, tool.name, subjects);
      if (verdict.decision === "deny") return { denied: describeRefusal(tool.name, verdict.matched), secretAllowed: false };
      const secretAllowed = paths.length > 0 && paths.every((path) => allowsExplicitly(options.rules, tool.name, path));
      return { ...(blocked ? { question: blocked.ask } : {}), secretAllowed };
    },
    async check(call) {
      // A shell tool's subjects are its simple commands, read by the shell reader: loaded before they are listed.
      const command = _commandOf(call);
      if (command !== undefined) await loadShellReader();
      const { subjects, paths, known } = callSubjects(call.tool, call.input, call.cwd);
      // The guards judge declared paths; a write whose paths cannot be read is never let through blind.
      if (!known && call.tool?.effect === "write")
        return { allowed: false, by: "rule", reason: `Refused: the paths of this ${call.name} call could not be read. Check its arguments.` };
      const gitDir = call.tool?.effect === "write" ? _gitDirWrite(call) : undefined;
      if (gitDir !== undefined) return { allowed: false, by: "rule", reason: gitDir };
      const blocked = await options.plugins.checkToolCall({
        toolName: call.name,
        input: call.input,
        cwd: call.cwd,
        effect: call.tool?.effect,
        paths,
        ...(call.checkpoint ? { checkpoint: call.checkpoint } : {}),
        ...(typeof command === "string" ? { command } : {}),
      });
      if (typeof blocked === "string") return { allowed: false, by: "plugin", reason: blocked };

      const turn = options.turnRules?.();
      const verdict = evaluatePermission(options.rules, call.name, subjects, turn ? [turn] : []);
      if (verdict.decision === "deny") return { allowed: false, by: "rule", reason: describeRefusal(call.name, verdict.matched) };
      if (blocked) return ask(call, subjects, false, verdict.matched, undefined, blocked.ask);
      if (call.byUser) return { allowed: true };

      const secrets = call.tool?.effect === "read" && call.tool.secretPaths !== "skip" ? _secretReads(options.rules, call, paths) : undefined;
      if (secrets?.asking) return ask(call, subjects, false, verdict.matched, secrets.asking);
      // Every possible secret it reads is allowed by a rule naming it; the other rules still decide the call.
      const flagged = secrets?.allowed ? { secretsAllowed: true as const } : {};

      const repeated = repeats.record(call.name, call.input) >= REPEAT_ASK_AT;
      const allowed = verdict.decision === "allow";
      if (allowed && known && !repeated && call.hook !== "ask") return { allowed: true, ...flagged };
      if ((options.yolo || call.hook === "allow") && call.hook !== "ask") return { allowed: true, ...flagged };
      const flaggedPath = secrets?.allowed ? undefined : _flaggedPath(call, subjects, paths);
      if (!flaggedPath && !repeated && call.hook !== "ask" && _readOnlyByDefault(options, call, verdict.matched)) return { allowed: true, ...flagged };
      return ask(call, subjects, repeated, verdict.matched, flaggedPath);
    },
  };
}

/** The refusal of a write call that declares a path in a git dir (or `.git` itself), or undefined. */
function _gitDirWrite(call: GateCall): string | undefined {
  let declared: unknown;
  try {
    declared = call.tool?.paths?.(call.input, call.cwd) ?? [];
  } catch {
    return undefined;
  }
  if (!Array.isArray(declared)) return undefined;
  for (const path of declared) {
    const refusal = typeof path === "string" ? gitDirRefusal(call.cwd, path) : undefined;
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/**
 * A call its tool declares read-only, asked only by the tool's default: no config pattern but a
 * bare `*` named it, and no rule of another source (a settings file's `ask: ["Bash"]` asks for `ls` too).
 */
function _readOnlyByDefault(options: GateOptions, call: GateCall, matched: PermissionMatch | undefined): boolean {
  if (options.allowReadOnly === false || !call.tool?.readOnly) return false;
  if (matched && (matched.pattern !== "*" || matched.source !== undefined)) return false;
  try {
    return call.tool.readOnly(call.input, call.cwd);
  } catch {
    return false;
  }
}

/**
 * The declared paths of a read the classifier flags: `asking` is the first one no user rule
 * allows by name; `allowed` is true when some were flagged and rules allow them all.
 */
function _secretReads(rules: PermissionRules, call: GateCall, paths: readonly string[]): { asking?: { path: string; why: string }; allowed: boolean } {
  let flagged = false;
  for (const path of paths) {
    const why = classifySecretFile(resolve(call.cwd, path), call.cwd);
    if (!why) continue;
    flagged = true;
    if (!allowsExplicitly(rules, call.name, path)) return { asking: { path, why }, allowed: false };
  }
  return { allowed: flagged };
}

/**
 * The shell command of a call of a tool that declares one: a string, `null` when the call has
 * none to read (the guard then has nothing to judge, and "always" grants nothing), undefined for
 * a tool that runs no shell command.
 */
function _commandOf(call: GateCall): string | null | undefined {
  if (!call.tool?.command) return undefined;
  try {
    return call.tool.command(call.input) ?? null;
  } catch {
    return null;
  }
}

/** The first declared path, or word of a shell command, that the classifier flags: no grant covers the call. */
function _flaggedPath(call: GateCall, subjects: readonly string[], paths: readonly string[]): { path: string; why: string } | undefined {
  const words = _commandOf(call) !== undefined ? subjects.flatMap(_commandWords) : [];
  const home = homeDirectory();
  for (const path of [...paths, ...words]) {
    const spelled = path === "~" || path.startsWith("~/") ? join(home, path.slice(1)) : path;
    const why = classifySecretPath(spelled, call.cwd) ?? classifySecretFile(resolve(call.cwd, spelled), call.cwd);
    if (why) return { path, why };
  }
  return undefined;
}

/** The words of one simple command, unquoted, with `--flag=value` giving its value too. */
function _commandWords(line: string): string[] {
  return line
    .split(/\s+/)
    .map((word) => word.replace(/^['"]+|['"]+$/g, ""))
    .flatMap((word) => (word.includes("=") ? [word, word.slice(word.indexOf("=") + 1)] : [word]))
    .filter((word) => word.length > 0 && !word.startsWith("-"));
}

/** One line for display: a shell call's command as written (its subjects are its simple commands), else the subjects joined. */
function _subjectLine(call: GateCall, subjects: string[]): string {
  const command = _commandOf(call);
  return typeof command === "string" ? command.replace(/\s+/g, " ").trim() : subjects.join(", ");
}

/**
 * The decision source of `--approvals block`: each question is persisted as a pending approval
 * (approvals.json) and the run suspends; `shiro approve|deny <id>` answers it later.
 */
export function createBlockingDecision(run: { runId: string; sessionId: string }): DecisionSource {
  return async (request) => {
    createPending({
      id: request.id,
      runId: request.runId ?? run.runId,
      sessionId: request.sessionId ?? run.sessionId,
      callId: request.callId,
      tool: request.tool,
      input: request.input,
      subjects: request.subjects,
      cwd: request.cwd,
      suggestedPattern: request.suggestedPattern,
    });
    return "block";
  };
}
