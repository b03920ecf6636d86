/**
 * Runs a citty subcommand strictly: unknown flags are usage errors (citty itself ignores them),
 * and `--help` prints the command's usage.
 */
import { renderUsage, runCommand, type ArgsDef, type CommandDef } from "citty";
import { UsageError } from "../lib/errors.ts";
import { parseFlags, type FlagSpec } from "./_flags.ts";
import { writeOut } from "./_output.ts";

export function specsFromArgs(args: ArgsDef): FlagSpec[] {
  const specs: FlagSpec[] = [{ name: "help", alias: "h", kind: "boolean", description: "help" }];
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const alias = (def as { alias?: string | string[] }).alias;
    const aliases = Array.isArray(alias) ? alias : alias ? [alias] : [];
    specs.push({
      name, alias: aliases[0], kind: def.type === "boolean" ? "boolean" : "string", description: def.description ?? "",
      choices: def.type === "enum" ? def.options : undefined,
    });
  }
  return specs;
}

/** Dispatches through nested subCommands, checking each level's flags. */
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
    writeOut(`${(await renderUsage(cmd)).replace(/^/, "")}\n`);
    return;
  }
  const positionals = Object.values(args).filter((def) => def.type === "positional");
  if (subCommands && !cmd.run) {
    throw new UsageError(first ? `unknown command "${name} ${first}". Available: ${Object.keys(subCommands).join(", ")}` : `${name} needs a command: ${Object.keys(subCommands).join(", ")}`);
  }
  if (parsed._.length > positionals.length) throw new UsageError(`unexpected argument "${parsed._[positionals.length]}" for ${name}`);
  const required = positionals.filter((def) => def.required !== false);
  if (parsed._.length < required.length) {
    const missing = Object.entries(args).filter(([, def]) => def.type === "positional")[parsed._.length]?.[0];
    throw new UsageError(`${name} needs <${missing}>`);
  }
  await runCommand(cmd, { rawArgs });
}
