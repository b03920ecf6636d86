/**
 * Runs a subcommand defined with citty's `defineCommand`. Its argv is parsed once, strictly, by
 * the parser the root flags use (`parseFlags`): unknown flags, missing values, values outside an
 * enum's options and extra or missing positionals are UsageErrors (exit 2); a last positional
 * marked `variadic: true` takes the rest. citty's own parser and
 * runner are never called (they ignore unknown flags and read `--no-x` as x=false); `run` gets the
 * context citty would give it: `args` holds every flag given, each positional under its name, and
 * `_`. `--help`/`-h` prints the command's usage instead (lib/ui/usage.ts).
 */
import type { ArgsDef, CommandContext, CommandDef } from "citty";
import { UsageError } from "../lib/platform/errors.ts";
import { parseFlags, type ParsedFlags } from "./_flags.ts";
import { type FlagSpec } from "../lib/config/flags.ts";
import { writeOut } from "../lib/ui/output.ts";

export function specsFromArgs(args: ArgsDef): FlagSpec[] {
  const specs: FlagSpec[] = [{ name: "help", alias: "h", kind: "boolean", description: "help" }];
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const alias = (def as { alias?: string | string[] }).alias;
    const aliases = Array.isArray(alias) ? alias : alias ? [alias] : [];
    specs.push({
      name,
      alias: aliases[0],
      kind: def.type === "boolean" ? "boolean" : "string",
      description: def.description ?? "",
      choices: def.type === "enum" ? def.options : undefined,
    });
  }
  return specs;
}

/** Dispatches through nested subCommands, checking each level's flags; `name` is the path typed so far. */
export async function runStrict(cmd: CommandDef<any>, rawArgs: string[], name: string): Promise<void> {
  const subCommands = typeof cmd.subCommands === "function" ? await cmd.subCommands() : await cmd.subCommands;
  const first = rawArgs.find((arg) => !arg.startsWith("-"));
  if (subCommands && first && first in subCommands) {
    const index = rawArgs.indexOf(first);
    const entry = subCommands[first]!;
    const sub = (typeof entry === "function" ? await (entry as () => Promise<CommandDef<any>>)() : await entry) as CommandDef<any>;
    return runStrict(sub, rawArgs.slice(index + 1), `${name} ${first}`);
  }
  const args: ArgsDef = (typeof cmd.args === "function" ? await cmd.args() : await cmd.args) ?? {};
  const parsed = parseFlags(rawArgs, specsFromArgs(args));
  if (parsed.help) {
    const { renderCommandUsage } = await import("../lib/ui/usage.ts");
    writeOut(`${await renderCommandUsage(cmd, name)}\n`);
    return;
  }
  const positionals = Object.values(args).filter((def) => def.type === "positional");
  if (subCommands && !cmd.run) {
    throw new UsageError(
      first
        ? `unknown command "${name} ${first}". Available: ${Object.keys(subCommands).join(", ")}`
        : `${name} needs a command: ${Object.keys(subCommands).join(", ")}`,
    );
  }
  // A last positional declared `variadic: true` takes every remaining argument (`mcp add name -- cmd args…`).
  const variadic = (positionals.at(-1) as { variadic?: boolean } | undefined)?.variadic === true;
  if (!variadic && parsed._.length > positionals.length) throw new UsageError(`unexpected argument "${parsed._[positionals.length]}" for ${name}`);
  const required = positionals.filter((def) => def.required !== false);
  if (parsed._.length < required.length) {
    const missing = Object.entries(args).filter(([, def]) => def.type === "positional")[parsed._.length]?.[0];
    throw new UsageError(`${name} needs <${missing}>`);
  }
  const context = { rawArgs, args: toCommandArgs(parsed, args), cmd } as CommandContext<any>;
  await cmd.run?.(context);
}

/** The `args` a command's `run` reads: flags as parsed (else their default), positionals by name, `_`. */
export function toCommandArgs(parsed: ParsedFlags, args: ArgsDef): Record<string, unknown> {
  const out: Record<string, unknown> = { _: parsed._ };
  let position = 0;
  for (const [name, def] of Object.entries(args)) {
    const value = def.type === "positional" ? parsed._[position++] : parsed[name];
    const fallback = (def as { default?: unknown }).default;
    if (value !== undefined || fallback !== undefined) out[name] = value ?? fallback;
  }
  return out;
}
