/**
 * Pieces of a tool call's one-line summary (ToolDefinition.summary): what the REPL shows for a
 * call instead of its arguments. They read the RAW input, so every field is type-checked here.
 */

/** The lines of `text`: 0 for empty. */
function _lines(text: string): number {
  if (text === "") return 0;
  return text.replace(/\n$/, "").split("\n").length;
}

const _string = (value: unknown): string => (typeof value === "string" ? value : "");

/** `path +A -R` for replacements of `oldString` by `newString` in `path` (counted in lines). */
export function editSummary(input: unknown): string {
  const record = (input ?? {}) as Record<string, unknown>;
  const edits = Array.isArray(record.edits) ? (record.edits as Record<string, unknown>[]) : [record];
  let added = 0;
  let removed = 0;
  for (const edit of edits) {
    added += _lines(_string(edit?.newString));
    removed += _lines(_string(edit?.oldString));
  }
  return `${_string(record.path)} +${added} -${removed}`;
}

/** `path +A` for a whole file written (A lines). */
export function writeSummary(input: unknown): string {
  const record = (input ?? {}) as Record<string, unknown>;
  return `${_string(record.path)} +${_lines(_string(record.content))}`;
}

/** `+A -R` over a patch's lines, after the paths it touches. */
export function patchSummary(input: unknown, paths: readonly string[]): string {
  const lines = _string((input as Record<string, unknown> | undefined)?.patch).split("\n");
  const added = lines.filter((line) => line.startsWith("+") && !line.startsWith("+++")).length;
  const removed = lines.filter((line) => line.startsWith("-") && !line.startsWith("---")).length;
  return `${paths.join(", ")} +${added} -${removed}`;
}

/** One field of the input as a line: its string value. */
export function fieldSummary(field: string): (input: unknown) => string {
  return (input) => _string((input as Record<string, unknown> | undefined)?.[field]);
}
