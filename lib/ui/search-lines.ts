/**
 * How search results read on a terminal and in a pipe: one line per hit, columns aligned,
 *   `session 0193ab2c  2026-12-01 12:30  ~/src/app  tool-result bash  …the **match** in context…`
 * The kind and id are what the matching `show` command takes (`shiro sessions show 0193ab2c`).
 * Matches are bold when `bold` is on (a TTY without NO_COLOR) and plain otherwise. Times are local.
 * Passages, tool names and paths pass terminal-text.ts `showControls` before the bold is added.
 */
import { renderSnippet } from "../find/snippet.ts";
import type { SearchHit } from "../find/search.ts";
import { showControls } from "./terminal-text.ts";

export interface SearchViewOptions {
  bold: boolean;
  /** Replaced by `~` at the start of a project path. */
  home?: string;
  /** The terminal's width: each snippet then goes under its row, indented, wrapped by words to it. */
  width?: number;
}

/** The lines of a result table, or one line saying nothing matched. */
export function formatSearchLines(hits: readonly SearchHit[], query: string, options: SearchViewOptions): string[] {
  if (hits.length === 0) return [`nothing matches "${showControls(query)}"`];
  const rows = hits.map((hit) => [
    `${hit.kind} ${hit.shortId}`,
    formatLocalTime(hit.at),
    showControls(_tilde(hit.project, options.home)),
    showControls(hit.tool ? `${hit.role} ${hit.tool}` : hit.role),
  ]);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return hits.map((hit, i) => {
    const cells = rows[i]!.map((cell, column) => cell.padEnd(widths[column]!)).join("  ");
    const snippet = renderSnippet(hit.snippet, options.bold ? "\x1b[1m" : "", options.bold ? "\x1b[22m" : "", showControls);
    if (options.width === undefined) return `${cells}  ${snippet}`;
    return [cells.trimEnd(), ..._wrapVisible(snippet, options.width - _INDENT.length).map((line) => `${_INDENT}${line}`)].join("\n");
  });
}

/** `YYYY-MM-DD HH:MM` in local time; the input as is when it is not a time. */
export function formatLocalTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

const _INDENT = "    ";
// eslint-disable-next-line no-control-regex
const _visible = (text: string): number => text.replace(/\x1b\[[0-9;]*m/g, "").length;

/** Lines of at most `width` visible characters, broken at spaces (a longer word stands alone). */
function _wrapVisible(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(/\s+/).filter((part) => part !== "")) {
    const next = current ? `${current} ${word}` : word;
    if (!current || _visible(next) <= Math.max(10, width)) current = next;
    else {
      lines.push(current);
      current = word;
    }
  }
  if (current) lines.push(current);
  return lines;
}

function _tilde(path: string, home: string | undefined): string {
  if (!home || !path) return path || "-";
  if (path === home) return "~";
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}
