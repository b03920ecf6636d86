/**
 * Text views of the registry for a terminal: the index (list and search) and what is installed.
 * Rows are `<S|P>  <name>  <description>`, names padded to one column, descriptions cut at
 * DESCRIPTION_WIDTH characters; index rows of installed entries end with `installed`.
 */
import type { InstalledEntry } from "../extensions/registry/registry.ts";
import type { RegistryEntry, RegistryKind } from "../extensions/registry/schema.ts";
import { showControls } from "./terminal-text.ts";

export const DESCRIPTION_WIDTH = 58;

/** Index rows, then a blank line and `<shown> of <total> available`. */
export function renderRegistryList(shown: readonly RegistryEntry[], total: number, installed: readonly InstalledEntry[]): string {
  const have = new Set(installed.map((entry) => `${entry.kind}:${entry.name}`));
  const rows = _renderRows(shown.map((entry) => ({ ...entry, flag: have.has(`${entry.kind}:${entry.name}`) ? "installed" : "" })));
  return [...rows, ...(rows.length > 0 ? [""] : []), `${shown.length} of ${total} available`].join("\n");
}

/** Installed rows, then `N from the registry`; or `nothing installed yet`. */
export function renderInstalledList(installed: readonly InstalledEntry[]): string {
  if (installed.length === 0) return "nothing installed yet";
  const rows = _renderRows(
    installed.map((entry) => ({
      kind: entry.kind,
      name: entry.name,
      flag: "",
      description: entry.problem === undefined ? entry.description : `(will not load: ${entry.problem})`,
    })),
  );
  return [...rows, "", `${installed.length} from the registry`].join("\n");
}

/** True when an index entry is installed (same kind and name). */
export function isInstalled(entry: RegistryEntry, installed: readonly InstalledEntry[]): boolean {
  return installed.some((item) => item.kind === entry.kind && item.name === entry.name);
}

interface _Row {
  kind: RegistryKind;
  name: string;
  description: string;
  flag: string;
}

function _renderRows(rows: readonly _Row[]): string[] {
  const nameWidth = Math.max(0, ...rows.map((row) => row.name.length));
  const descriptions = rows.map((row) => _clip(row.description.replace(/\s+/g, " ").trim(), DESCRIPTION_WIDTH));
  const descriptionWidth = Math.max(0, ...descriptions.map((text) => text.length));
  return rows.map((row, i) => {
    const line = `${row.kind === "skill" ? "S" : "P"}  ${row.name.padEnd(nameWidth)}  ${descriptions[i]!.padEnd(descriptionWidth)}  ${row.flag}`;
    return showControls(line.trimEnd());
  });
}

function _clip(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}
