/** The lines of a text as read_file numbers them: what the file tools and an editor's attached resources share. */

/** Lines of a text, without their `\n` or `\r\n`; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}
