/**
 * Subcommands as a lazy map of literal `import()`s: a subcommand's module (and what it imports)
 * is loaded only when that subcommand runs. Summaries live here so `--help` loads none of them.
 */
import type { CommandDef } from "citty";

type Loader = () => Promise<CommandDef<any>>;

export const SUBCOMMANDS: Record<string, Loader> = {
  config: () => import("./config.ts").then((m) => m.default),
};

export const SUBCOMMAND_SUMMARIES: Record<string, string> = {
  "config [path|show|set <key> <json>]": "show or change config.json",
};
