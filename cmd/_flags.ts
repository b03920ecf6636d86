/**
 * The strict flag parser, the only one: the root command parses its argv against ROOT_FLAGS
 * (declared once, in lib/config/flags.ts) and subcommands parse theirs with it too (_run-citty.ts).
 *
 * Parsing rule (kept from the seed): a flag takes the next argv item as its value unless that item
 * starts with `-`; `--flag=value` works too. `-p` alone (or `-p --json`, or `-p -`) means "prompt from stdin".
 */
import { UsageError } from "../lib/platform/errors.ts";
import type { FlagSpec } from "../lib/config/flags.ts";

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
      // `-p -` is the usual spelling of "from stdin": the dash is taken, as an empty value.
      if (next !== undefined && (!next.startsWith("-") || (next === "-" && spec.kind === "optional-string"))) {
        value = next === "-" ? "" : next;
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
    if (spec.kind === "list") {
      if (value === "") throw new UsageError(`${key} needs a value${spec.valueHint ? ` ${spec.valueHint}` : ""}`);
      const list = out[spec.name];
      out[spec.name] = [...(Array.isArray(list) ? list : []), value];
    } else out[spec.name] = value;
  }
  return out;
}
