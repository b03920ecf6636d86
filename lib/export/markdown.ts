/**
 * An export as Markdown that reads well in a pull request: a title, a metadata table, the task
 * list, then the transcript. Tool calls and compaction blocks fold into `<details>` (GitHub shows
 * them collapsed); diffs go in ```diff fences, which GitHub colours. Fences are longer than any
 * run of backticks inside them, so no content can close one early.
 */
import type { ExportDoc, ExportEntry } from "./export-doc.ts";
import { toolHeadline } from "./export-entries.ts";

const _TODO_MARKS = { pending: "[ ]", in_progress: "[ ]", done: "[x]", blocked: "[ ]" } as const;

export function renderMarkdown(doc: ExportDoc): string {
  const lines = [`# ${_inline(doc.title)}`, "", "| | |", "|---|---|", ...doc.meta.map(([key, value]) => `| ${key} | ${_cell(value)} |`), ""];
  if (doc.todos.length > 0) {
    lines.push(
      "## Tasks",
      "",
      ...doc.todos.map(
        (todo) =>
          `- ${_TODO_MARKS[todo.status]} ${_inline(todo.content)}${todo.status === "in_progress" ? " *(in progress)*" : todo.status === "blocked" ? ` *(blocked${todo.note ? `: ${_inline(todo.note)}` : ""})*` : ""}`,
      ),
      "",
    );
  }
  lines.push("## Transcript", "");
  for (const entry of doc.entries) lines.push(..._entry(entry));
  return `${lines.join("\n").trimEnd()}\n`;
}

function _entry(entry: ExportEntry): string[] {
  switch (entry.type) {
    case "prompt":
      return ["### User", "", entry.text.trim(), ""];
    case "answer":
      return ["### Assistant", "", entry.text.trim(), ""];
    case "notice":
      return [`> ${_inline(entry.text)}`, ""];
    case "tool": {
      const status = entry.output === undefined ? " (no result)" : entry.isError ? " (error)" : "";
      const head = entry.head ?? toolHeadline(entry.input);
      const body = [`<details><summary>${_html(entry.name)}${head ? `: <code>${_html(head)}</code>` : ""}${status}</summary>`, ""];
      if (entry.input) body.push(..._fence(entry.input), "");
      if (entry.output !== undefined) body.push(..._fence(entry.output || "(empty)"), "");
      return [...body, "</details>", ""];
    }
    case "compaction":
      return [
        `<details><summary>${_html(entry.label)}</summary>`,
        "",
        ...entry.entries.flatMap(_entry),
        "</details>",
        "",
        `> **Summary:** ${entry.summary.trim().split("\n").join("\n> ")}`,
        "",
      ];
  }
}

function _fence(text: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  return [`${fence}${isDiff(text) ? "diff" : ""}`, text.replace(/\n+$/, ""), fence];
}

/** A unified diff or an edit shown as one: `---`/`+++` headers or `@@` hunks. */
export function isDiff(text: string): boolean {
  return /^@@/m.test(text) && /^[-+]/m.test(text);
}

function _inline(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function _cell(text: string): string {
  return _inline(text).replace(/\|/g, "\\|");
}

function _html(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
