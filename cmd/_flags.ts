/**
 * The root command's flag surface, in one place (the help text and the strict parser read this
 * table), and that parser, the only one: subcommands parse their argv with it too (_run-citty.ts).
 *
 * Parsing rule (kept from the seed): a flag takes the next argv item as its value unless that item
 * starts with `-`; `--flag=value` works too. `-p` alone (or `-p --json`) means "prompt from stdin".
 */
import { UsageError } from "../lib/errors.ts";

export type FlagKind = "boolean" | "string" | "optional-string";

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
}

export const ROOT_FLAGS: readonly FlagSpec[] = [
  { name: "print", alias: "p", kind: "optional-string", valueHint: "[prompt]", description: "headless: run one turn and print the answer (prompt from stdin when omitted)" },
  { name: "json", kind: "boolean", description: "with -p: print one JSON event per line on stdout" },
  { name: "continue", alias: "c", kind: "boolean", description: "resume the newest session of this directory" },
  { name: "resume", alias: "r", kind: "string", valueHint: "<id>", description: "resume a session by id or unique prefix" },
  { name: "agent", kind: "string", valueHint: "<name>", description: "agent variant: default, quick, deep, plan, review", choices: ["default", "quick", "deep", "plan", "review"], choiceLabel: "agent" },
  { name: "think", kind: "string", valueHint: "<level>", description: "thinking level: off, low, medium, high, max", choices: ["off", "low", "medium", "high", "max"], choiceLabel: "thinking level" },
  { name: "provider", kind: "string", valueHint: "<preset>", description: "provider preset (anthropic, openai, openrouter, ollama, …)" },
  { name: "protocol", kind: "string", valueHint: "<wire>", description: "force a wire protocol: chat, responses, anthropic", choices: ["chat", "responses", "anthropic"], choiceLabel: "protocol" },
  { name: "model", kind: "string", valueHint: "<id>", description: "model id" },
  { name: "base-url", kind: "string", valueHint: "<url>", description: "API root, e.g. http://127.0.0.1:8080/v1" },
  { name: "yolo", kind: "boolean", description: "turn every \"ask\" into \"allow\" (deny rules and guard plugins still apply)" },
  { name: "approvals", kind: "string", valueHint: "<mode>", description: "headless: deny (default) or block (stop with exit 3 and wait for `shiro approve`)", choices: ["deny", "block"], choiceLabel: "approvals mode" },
  { name: "detach", kind: "boolean", description: "with -p: run in the background and print the run id" },
  { name: "no-mcp", kind: "boolean", description: "do not connect MCP servers" },
  { name: "no-subagent", kind: "boolean", description: "leave out the task (subagent) tool" },
  { name: "no-instructions", kind: "boolean", description: "ignore AGENTS.md, CLAUDE.md and .shiro.md" },
  { name: "no-skills", kind: "boolean", description: "load no skills (builtin, registry, user or project)" },
  { name: "no-plugins", kind: "boolean", description: "load no plugins, builtin or installed (the guard included)" },
  { name: "no-memory", kind: "boolean", description: "neither load nor write project or global memory" },
  { name: "no-sandbox", kind: "boolean", description: "run shell commands unconfined (see docs/security.md)" },
  { name: "version", alias: "v", kind: "boolean", description: "print the version and exit" },
  { name: "help", alias: "h", kind: "boolean", description: "print this help and exit" },
];

export interface ParsedFlags {
  /** Positional arguments, in order. */
  _: string[];
  [flag: string]: string | boolean | string[] | undefined;
}

/**
 * Strictly parses argv against a flag table. Unknown flags, missing values and values outside
 * `choices` are UsageErrors (exit 2). Positionals are collected in `_`.
 */
export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): ParsedFlags {
  const out: ParsedFlags = { _: [] };
  const byName = new Map<string, FlagSpec>();
  for (const spec of specs) {
    byName.set(`--${spec.name}`, spec);
    if (spec.alias) byName.set(`-${spec.alias}`, spec);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      out._.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      out._.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const key = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = byName.get(key);
    if (!spec) throw new UsageError(`unknown flag ${key}`);
    if (spec.kind === "boolean") {
      if (eq > 0) throw new UsageError(`${key} takes no value`);
      out[spec.name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("-")) {
        value = next;
        i++;
      }
    }
    if (value === undefined) {
      if (spec.kind === "string") throw new UsageError(`${key} needs a value${spec.valueHint ? ` ${spec.valueHint}` : ""}`);
      value = "";
    }
    if (spec.choices && !spec.choices.includes(value)) {
      throw new UsageError(`unknown ${spec.choiceLabel ?? "value"} "${value}" for ${key}. Available: ${spec.choices.join(", ")}`);
    }
    out[spec.name] = value;
  }
  return out;
}
