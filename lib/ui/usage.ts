/**
 * A subcommand's `--help` text: citty's usage layout, named by the path the user typed
 * (`USAGE shiro config set …`, never the binary's internal path), with ANSI colours only when
 * stdout is a terminal and NO_COLOR is unset, and no trailing spaces.
 */
import { renderUsage, type CommandDef } from "citty";
import { colourEnabled } from "./style.ts";
import { VERSION } from "../platform/version.ts";

const ANSI_SGR = /\x1b\[[0-9;]*m/g;

export async function renderCommandUsage(cmd: CommandDef<any>, path: string, colour = colourEnabled()): Promise<string> {
  const meta = (typeof cmd.meta === "function" ? await cmd.meta() : await cmd.meta) ?? {};
  const text = await renderUsage({ ...cmd, meta: { ...meta, name: path } }, { meta: { version: VERSION } });
  return (colour ? text : text.replace(ANSI_SGR, "")).replace(/[ \t]+$/gm, "");
}
