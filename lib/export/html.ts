/**
 * An export as one self-contained HTML file: no network access and no external asset (a Content
 * Security Policy forbids any load; style and script are inline). It shows the metadata, the
 * task list and the transcript: tool calls and their results folded, diffs coloured, compaction
 * blocks with their summary, a search box that filters the messages as it is typed into, light
 * and dark themes following the system, and print styles (every fold opens for printing).
 * Every text is escaped; nothing from the record becomes markup.
 */
import type { ExportDoc, ExportEntry } from "./export-doc.ts";
import { toolHeadline } from "./export-entries.ts";
import { EXPORT_CSS, EXPORT_SCRIPT } from "./html-assets.ts";
import { isDiff } from "./markdown.ts";

const _CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
const _TODO_MARKS = { pending: "[ ]", in_progress: "[~]", done: "[x]", blocked: "[!]" } as const;

export function renderHtml(doc: ExportDoc, generatedAt: Date = new Date()): string {
  const meta = doc.meta.map(([key, value]) => `<dt>${_esc(key)}</dt><dd>${_esc(value)}</dd>`).join("");
  const todos =
    doc.todos.length === 0
      ? ""
      : `<h2>Tasks</h2><ul class="todos">${doc.todos.map((todo) => `<li class="${todo.status}"><span class="mark">${_TODO_MARKS[todo.status]}</span>${_esc(todo.content)}${todo.note ? ` <small>(${_esc(todo.note)})</small>` : ""}</li>`).join("")}</ul>`;
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="${_CSP}">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">`,
    `<title>${_esc(doc.title)} · shiro ${doc.kind}</title><style>${EXPORT_CSS}</style></head>`,
    `<body><div class="page">`,
    `<h1>${_esc(doc.title)}</h1><p class="kind">${doc.kind} ${_esc(doc.id)}</p>`,
    `<dl class="meta">${meta}</dl>`,
    todos,
    `<h2>Transcript</h2>`,
    `<div class="toolbar"><input id="search" type="search" placeholder="Filter messages…" aria-label="Filter messages" autocomplete="off"><span id="count" class="count"></span></div>`,
    `<main id="transcript">${doc.entries.map(_entry).join("\n")}</main>`,
    `<p id="empty" class="empty hidden">No message holds every word.</p>`,
    `<footer>Exported by shiro on ${_esc(generatedAt.toISOString().slice(0, 16).replace("T", " "))} UTC. Secrets were redacted.</footer>`,
    `</div><script>${EXPORT_SCRIPT}</script></body></html>`,
    "",
  ].join("\n");
}

function _entry(entry: ExportEntry): string {
  switch (entry.type) {
    case "prompt":
      return `<article class="msg prompt"><div class="role">User</div><div class="body">${_esc(entry.text.trim())}</div></article>`;
    case "answer":
      return `<article class="msg answer"><div class="role">Assistant</div><div class="body">${_esc(entry.text.trim())}</div></article>`;
    case "notice":
      return `<article class="msg notice"><div class="body">${_esc(entry.text)}</div></article>`;
    case "tool": {
      const head = entry.head ?? toolHeadline(entry.input);
      const status = entry.output === undefined ? ` <span class="error">no result</span>` : entry.isError ? ` <span class="error">error</span>` : "";
      const input = entry.input ? _pre("input", entry.input) : "";
      const output = entry.output === undefined ? "" : _pre(entry.isError ? "error" : "result", entry.output || "(empty)");
      return `<article class="msg tool"><details><summary><span class="tool-name">${_esc(entry.name)}</span>${head ? ` <code>${_esc(head)}</code>` : ""}${status}</summary>${input}${output}</details></article>`;
    }
    case "compaction":
      return (
        `<section class="msg compaction"><details><summary>${_esc(entry.label)}${entry.entries.length > 0 ? ` · ${entry.entries.length} ${entry.entries.length === 1 ? "entry" : "entries"}` : ""}</summary><div class="inner">${entry.entries.map(_entry).join("\n")}</div></details>` +
        `<div class="summary"><b>Summary</b>\n${_esc(entry.summary.trim())}</div></section>`
      );
  }
}

function _pre(label: string, text: string): string {
  const body = isDiff(text)
    ? text
        .replace(/\n+$/, "")
        .split("\n")
        .map((line) => {
          const cls = /^(@@|\+\+\+ |--- )/.test(line) ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
          return cls ? `<span class="${cls}">${_esc(line)}</span>` : `${_esc(line)}\n`;
        })
        .join("")
    : _esc(text.replace(/\n+$/, ""));
  return `<pre><span class="label">${label}</span>${body}</pre>`;
}

function _esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
