/**
 * Tab completion for the REPL's readline: slash commands at the start of a line (an exact name
 * first, so `/model` is not shadowed by `/models`), and workspace paths after `@` (prefix matches
 * before substring matches, ignore-aware, files only). The file list is walked once, at the first
 * `@` completion, up to 5,000 files. After a command and a space, `values` gives what its
 * argument may be (/model, /agent, /think, /resume, /mode): completed by prefix.
 */
import { walkWorkspace } from "../tools/walk.ts";

export const COMPLETION_FILE_LIMIT = 5_000;
const _SHOWN = 50;

export type Completer = (line: string, callback: (error: null, result: [string[], string]) => void) => void;

export interface CompleterOptions {
  root: string;
  /** Command names; a function is read at each Tab (commands that appear later: MCP prompts). */
  commands: readonly string[] | (() => readonly string[]);
  /** The values a command's argument may take, read at each Tab; undefined: none are known. */
  values?: (command: string) => readonly string[] | undefined;
}

export function createCompleter(options: CompleterOptions): Completer {
  let files: Promise<string[]> | undefined;
  const listFiles = () => {
    files ??= (async () => {
      const found: string[] = [];
      for await (const entry of walkWorkspace(options.root, { limit: COMPLETION_FILE_LIMIT * 2 })) {
        if (!entry.dir) found.push(entry.path);
        if (found.length >= COMPLETION_FILE_LIMIT) break;
      }
      return found.sort();
    })().catch(() => []);
    return files;
  };
  return (line, callback) => {
    if (/^\/\S*$/.test(line)) {
      const hits = (typeof options.commands === "function" ? options.commands() : options.commands).filter((name) => name.startsWith(line));
      hits.sort((a, b) => (a === line ? -1 : b === line ? 1 : a.localeCompare(b)));
      callback(null, [hits, line]);
      return;
    }
    const argument = /^(\/\S+) (\S*)$/.exec(line);
    const values = argument ? options.values?.(argument[1]!) : undefined;
    if (argument && values) {
      const typed = argument[2]!;
      callback(null, [[...new Set(values)].filter((value) => value.startsWith(typed)), typed]);
      return;
    }
    const token = /(?:^|\s)(@\S*)$/.exec(line)?.[1];
    if (!token) {
      callback(null, [[], line]);
      return;
    }
    const wanted = token.slice(1).toLowerCase();
    void listFiles().then((all) => {
      const prefix = all.filter((path) => path.toLowerCase().startsWith(wanted));
      const inside = all.filter((path) => !path.toLowerCase().startsWith(wanted) && path.toLowerCase().includes(wanted));
      callback(null, [[...prefix, ...inside].slice(0, _SHOWN).map((path) => `@${path}`), token]);
    });
  };
}
