/**
 * The bash reader, loaded on first use like the parser under it: `listRuleSubjects` (read.ts, a
 * command line's simple commands as rules see them) and `isReadOnlyCommand` (read-only.ts). The
 * policy that reads a command (the gate, the permission rules, bash's `readOnly` declaration)
 * reaches them through `shellReader()`, so a session that reads no command loads neither them nor
 * the modules they stand on. Whoever reads a bash command first awaits `loadShellReader()`, which
 * loads the parser too; `shellReader()` is synchronous from then on.
 */
import { loadShellParser } from "./parser.ts";

export interface ShellReader {
  listRuleSubjects(source: string): string[];
  isReadOnlyCommand(source: string, root: string): boolean;
}

let _reader: ShellReader | undefined;
let _loading: Promise<void> | undefined;

/** Loads the parser and the reader once; later calls return at once. */
export function loadShellReader(): Promise<void> {
  _loading ??= Promise.all([loadShellParser(), import("./read.ts"), import("./read-only.ts")]).then(([, read, readOnly]) => {
    _reader = { listRuleSubjects: read.listRuleSubjects, isReadOnlyCommand: readOnly.isReadOnlyCommand };
  });
  return _loading;
}

export function isShellReaderLoaded(): boolean {
  return _reader !== undefined;
}

/** The loaded reader. Throws when called before `loadShellReader()` has resolved: that is a bug in the caller. */
export function shellReader(): ShellReader {
  if (!_reader) throw new Error("the shell reader is not loaded: await loadShellReader() before reading a command");
  return _reader;
}
