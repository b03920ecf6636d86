/**
 * `shiro export <session-or-run-id>`: a session or a run as Markdown (default, on stdout), the
 * stored JSON record, or one self-contained HTML file (lib/export/). Everything passes through
 * the redactor first. `-o` writes a file (replaced atomically) instead of stdout.
 */
import { defineCommand } from "citty";
import { UsageError } from "../lib/platform/errors.ts";
import { writeOut, writeErr } from "../lib/ui/output.ts";

const _FORMATS = ["md", "json", "html"] as const;
type _Format = (typeof _FORMATS)[number];
const _ALIASES: Record<string, _Format> = { md: "md", markdown: "md", json: "json", html: "html", htm: "html" };

export default defineCommand({
  meta: { name: "export", description: "a session or run as Markdown, JSON or one self-contained HTML file, secrets redacted" },
  args: {
    id: { type: "positional", description: "session or run id, or a unique prefix (shiro search, shiro sessions and shiro runs print them)" },
    format: { type: "string", alias: "f", description: "md (default), json or html; -o file.html picks html too" },
    output: { type: "string", alias: "o", description: "write to this file instead of stdout" },
  },
  async run({ args }) {
    const out = args.output ? String(args.output) : undefined;
    const format = _formatOf(args.format ? String(args.format) : undefined, out);
    const { buildExportDoc, loadExportRecord } = await import("../lib/export/export-doc.ts");
    const record = loadExportRecord(String(args.id ?? ""));
    let text: string;
    if (format === "json") text = `${JSON.stringify(record.kind === "session" ? record.session : { run: record.run, events: record.events }, null, 2)}\n`;
    else if (format === "html") text = (await import("../lib/export/html.ts")).renderHtml(buildExportDoc(record));
    else text = (await import("../lib/export/markdown.ts")).renderMarkdown(buildExportDoc(record));
    // On stdout a document is stripped of terminal controls like a -p answer (docs/security.md); JSON and files stay exact.
    if (!out) return writeOut(format === "json" ? text : (await import("../lib/ui/terminal-text.ts")).stripControls(text));
    const { writeTextAtomic } = await import("../lib/state-file/json-file.ts");
    const { resolve } = await import("node:path");
    writeTextAtomic(resolve(out), text);
    writeErr(`wrote ${record.kind} ${record.kind === "session" ? record.session.id : record.run.id} as ${format} to ${out}\n`);
  },
});

/** `--format` wins; else the output file's extension; else Markdown. */
function _formatOf(given: string | undefined, out: string | undefined): _Format {
  if (given !== undefined) {
    const format = _ALIASES[given.trim().toLowerCase()];
    if (!format) throw new UsageError(`unknown export format "${given}"; use md, json or html`);
    return format;
  }
  const extension = out ? /\.([a-z]+)$/i.exec(out)?.[1]?.toLowerCase() : undefined;
  return (extension && _ALIASES[extension]) || "md";
}
