/**
 * The root command's flags, each declared once: its name, alias, kind, help line, allowed values
 * and where its value goes. Everything else is derived from this table: the strict parser and
 * `--help` (cmd/_flags.ts, cmd/_help.ts), the `AgentFlags` a front end hands to `createAgent`
 * (`option`: the AgentFlags field), and the run snapshot's `options` that `shiro runs resume`
 * rebuilds a session from (`saved`: kept in the snapshot; lib/store/runs.ts derives its schema).
 *
 * Kept free of heavy imports: `cmd/shiro.ts` reads it on the start-up path.
 */
import { AGENT_NAMES, APPROVAL_MODES, PROTOCOL_FLAGS, THINKING_LEVELS } from "../vocabulary.ts";

/** `list`: a string flag that may be repeated; its values are kept in order. */
export type FlagKind = "boolean" | "string" | "optional-string" | "list";

export interface FlagSpec {
  name: string;
  alias?: string;
  kind: FlagKind;
  valueHint?: string;
  description: string;
  /** Allowed values, checked at parse time. */
  choices?: readonly string[];
  /** What a choice is called in the error: `unknown agent "x"`. */
  choiceLabel?: string;
  /** The AgentFlags field the value goes to (flags without one are the command's own: -p, --json, …). */
  option?: string;
  /** Kept in the run snapshot, so `shiro runs resume` runs with it. */
  saved?: boolean;
  /** The value when the flag is absent (string flags with an option). */
  default?: string;
}

const _TABLE = [
  {
    name: "print",
    alias: "p",
    kind: "optional-string",
    valueHint: "[prompt]",
    description: "headless: run one turn and print the answer (prompt from stdin when omitted)",
  },
  {
    name: "output-format",
    kind: "string",
    valueHint: "<format>",
    description: "with -p: text (default), json (one object at the end) or stream-json (one event per line)",
    choices: ["text", "json", "stream-json"],
    choiceLabel: "output format",
  },
  { name: "json", kind: "boolean", description: "with -p: the same as --output-format stream-json" },
  { name: "output-last-message", kind: "string", valueHint: "<file>", description: "with -p: also write the final answer to this file" },
  {
    name: "output-schema",
    kind: "string",
    valueHint: "<file>",
    description: "with -p: the answer must be JSON valid against this JSON Schema",
    option: "outputSchema",
    saved: true,
  },
  { name: "image", alias: "i", kind: "list", valueHint: "<file>", description: "with -p: attach an image to the prompt (repeatable)" },
  { name: "cd", alias: "C", kind: "string", valueHint: "<dir>", description: "run in this folder instead of the current one" },
  {
    name: "add-dir",
    kind: "list",
    valueHint: "<dir>",
    description: "also let tools and the sandbox write in this folder (repeatable)",
    option: "addDirs",
    saved: true,
  },
  {
    name: "max-steps",
    kind: "string",
    valueHint: "<n>",
    description: "stop after n model steps (exit 4); overrides maxSteps in config",
    option: "maxSteps",
    saved: true,
  },
  {
    name: "max-cost",
    kind: "string",
    valueHint: "<usd>",
    description: "stop before a request that would take the run past this many US dollars (exit 4)",
    option: "maxCost",
    saved: true,
  },
  {
    name: "allowed-tools",
    kind: "list",
    valueHint: "<rules>",
    description: 'allow these tools or calls for this run: bash, "bash(git status*)", Edit, mcp__server__tool (repeatable)',
    option: "allowedTools",
    saved: true,
  },
  {
    name: "disallowed-tools",
    kind: "list",
    valueHint: "<rules>",
    description: "deny these tools or calls for this run; a whole tool is not offered (repeatable)",
    option: "disallowedTools",
    saved: true,
  },
  {
    name: "append-system-prompt",
    kind: "string",
    valueHint: "<text|@file>",
    description: "add this text (or the file's) to the end of the system prompt",
    option: "appendSystemPrompt",
    saved: true,
  },
  { name: "continue", alias: "c", kind: "boolean", description: "resume the newest session of this directory", option: "continue" },
  { name: "resume", alias: "r", kind: "string", valueHint: "<id>", description: "resume a session by id or unique prefix", option: "resume" },
  { name: "force", kind: "boolean", description: "with -p -r: continue a session started in another project", option: "force" },
  {
    name: "agent",
    kind: "string",
    valueHint: "<name>",
    description: `agent variant: ${AGENT_NAMES.join(", ")}`,
    choices: AGENT_NAMES,
    choiceLabel: "agent",
    option: "agent",
    saved: true,
  },
  {
    name: "think",
    kind: "string",
    valueHint: "<level>",
    description: `thinking level: ${THINKING_LEVELS.join(", ")}`,
    choices: THINKING_LEVELS,
    choiceLabel: "thinking level",
    option: "think",
    saved: true,
  },
  {
    name: "provider",
    kind: "string",
    valueHint: "<preset>",
    description: "provider preset (anthropic, openai, openrouter, ollama, …)",
    option: "provider",
    saved: true,
  },
  {
    name: "protocol",
    kind: "string",
    valueHint: "<wire>",
    description: `force a wire protocol: ${PROTOCOL_FLAGS.join(", ")}`,
    choices: PROTOCOL_FLAGS,
    choiceLabel: "protocol",
    option: "protocol",
    saved: true,
  },
  { name: "model", kind: "string", valueHint: "<id>", description: "model id", option: "model", saved: true },
  { name: "base-url", kind: "string", valueHint: "<url>", description: "API root, e.g. http://127.0.0.1:8080/v1", option: "baseURL", saved: true },
  { name: "yolo", kind: "boolean", description: 'turn every "ask" into "allow" (deny rules and guard plugins still apply)', option: "yolo", saved: true },
  {
    name: "approvals",
    kind: "string",
    valueHint: "<mode>",
    description: "headless: deny (default) or block (stop with exit 3 and wait for `shiro approve`)",
    choices: APPROVAL_MODES,
    choiceLabel: "approvals mode",
    option: "approvals",
    saved: true,
    default: "deny",
  },
  { name: "detach", kind: "boolean", description: "with -p: run in the background and print the run id" },
  { name: "no-mcp", kind: "boolean", description: "do not connect MCP servers", option: "noMcp", saved: true },
  { name: "no-subagent", kind: "boolean", description: "leave out the task (subagent) tool", option: "noSubagent", saved: true },
  { name: "no-instructions", kind: "boolean", description: "ignore AGENTS.md, CLAUDE.md and .shiro.md", option: "noInstructions", saved: true },
  { name: "no-skills", kind: "boolean", description: "load no skills (builtin, registry, user or project)", option: "noSkills", saved: true },
  { name: "no-plugins", kind: "boolean", description: "load no plugins, builtin or installed (the guard included)", option: "noPlugins", saved: true },
  { name: "no-hooks", kind: "boolean", description: "run no hooks (config hooks, .claude/settings.json hooks)", option: "noHooks", saved: true },
  { name: "no-memory", kind: "boolean", description: "neither load nor write project or global memory", option: "noMemory", saved: true },
  {
    name: "no-checkpoints",
    kind: "boolean",
    description: "take no checkpoints of the workspace this session (docs/checkpoints.md)",
    option: "noCheckpoints",
    saved: true,
  },
  { name: "no-sandbox", kind: "boolean", description: "run shell commands unconfined (see docs/security.md)", option: "noSandbox", saved: true },
  { name: "version", alias: "v", kind: "boolean", description: "print the version and exit" },
  { name: "help", alias: "h", kind: "boolean", description: "print this help and exit" },
] as const satisfies readonly FlagSpec[];

/** The root flags in `--help` order. */
export const ROOT_FLAGS: readonly FlagSpec[] = _TABLE;

type _Flag = (typeof _TABLE)[number];
type _OptionFlag = Extract<_Flag, { option: string }>;
type _SavedFlag = Extract<_OptionFlag, { saved: true }>;
type _Value<F> = F extends { kind: "boolean" }
  ? boolean
  : F extends { kind: "list" }
    ? string[]
    : F extends { default: string; choices: readonly (infer C)[] }
      ? C
      : string;

/**
 * The session switches a front end hands to `createAgent`: one field per flag with an `option`.
 * A string flag without a default is absent when not given; a switch is false when off.
 */
export type AgentFlags = { [F in Extract<_OptionFlag, { default: string }> as F["option"]]: _Value<F> } & {
  [F in Exclude<_OptionFlag, { default: string }> as F["option"]]?: _Value<F>;
};

/** The run snapshot's `options`: the saved flags (lib/store/runs.ts validates it). */
export type RunOptions = { [F in _SavedFlag as F["option"]]?: F extends { kind: "boolean" } ? boolean : F extends { kind: "list" } ? string[] : string };

/** The flags a run snapshot keeps (`saved`). */
export const SAVED_FLAGS: readonly FlagSpec[] = ROOT_FLAGS.filter((flag) => flag.saved === true);

/** The AgentFlags of parsed root flags (kebab-case names, as `parseFlags` returns them). */
export function agentFlagsFrom(parsed: Readonly<Record<string, unknown>>): AgentFlags {
  const out: Record<string, unknown> = {};
  for (const flag of ROOT_FLAGS) {
    if (!flag.option) continue;
    const value = parsed[flag.name];
    if (flag.kind === "boolean") out[flag.option] = value === true;
    else if (flag.kind === "list") out[flag.option] = Array.isArray(value) && value.length > 0 ? [...value] : undefined;
    else out[flag.option] = typeof value === "string" && value !== "" ? value : flag.default;
  }
  return out as AgentFlags;
}

/** The flags a run snapshot keeps, so `shiro runs resume` can rebuild the session it ran in. */
export function runOptionsFromFlags(flags: AgentFlags): RunOptions {
  const source = flags as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const flag of SAVED_FLAGS) if (source[flag.option!] !== undefined) out[flag.option!] = source[flag.option!];
  return out as RunOptions;
}

/** The inverse of runOptionsFromFlags; a snapshot's missing switch is off, a value outside the choices its default. */
export function flagsFromRunOptions(saved: RunOptions): AgentFlags {
  const source = saved as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const flag of ROOT_FLAGS) {
    if (!flag.option) continue;
    const value = flag.saved ? source[flag.option] : undefined;
    if (flag.kind === "boolean") out[flag.option] = value === true;
    else if (flag.kind === "list") out[flag.option] = Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
    else if (flag.default !== undefined) out[flag.option] = typeof value === "string" && flag.choices?.includes(value) ? value : flag.default;
    else out[flag.option] = typeof value === "string" ? value : undefined;
  }
  return out as AgentFlags;
}
