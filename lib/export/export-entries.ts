/**
 * A transcript as export entries, from a session's messages or a run's event log. Tool calls are
 * paired with their results by call id. A session's compaction spans become blocks holding the
 * messages they took off the wire and their summary; transcripts `/compact` archived come first,
 * each as such a block. Edits are shown as diffs (`-` old lines, `+` new lines) with the path as
 * the header, so every format can colour them.
 */
import * as v from "valibot";
import { CompactionStateSchema, type CompactionState } from "../context-state/state.ts";
import type { Message } from "../messages.ts";
import type { LoggedEvent, RunSnapshot } from "../store/runs.ts";
import type { SessionRecord } from "../store/session-record.ts";

export type ExportEntry =
  | { type: "prompt"; text: string }
  | { type: "answer"; text: string }
  | { type: "tool"; name: string; input: string; output?: string; isError?: boolean; head?: string }
  | { type: "notice"; text: string }
  | { type: "compaction"; label: string; summary: string; entries: ExportEntry[] };

export function sessionEntries(session: SessionRecord): ExportEntry[] {
  const state = _compactionOf(session);
  const entries: ExportEntry[] = (state.archive ?? []).map((archive) => ({
    type: "compaction",
    label: `Earlier transcript, compacted ${archive.at.slice(0, 16).replace("T", " ")}${archive.focus ? ` (focus: ${archive.focus})` : ""}`,
    summary: archive.summary,
    entries: messageEntries(archive.messages),
  }));
  let at = 0;
  for (const span of state.spans) {
    if (span.from < at || span.to > session.messages.length) continue;
    entries.push(...messageEntries(session.messages.slice(at, span.from)));
    entries.push({
      type: "compaction",
      label: `Messages ${span.from + 1}–${span.to} compacted ${span.createdAt.slice(0, 16).replace("T", " ")}`,
      summary: span.summary ?? "(no summary was written)",
      entries: messageEntries(session.messages.slice(span.from, span.to)),
    });
    at = span.to;
  }
  entries.push(...messageEntries(session.messages.slice(at)));
  return entries;
}

export function messageEntries(messages: readonly Message[]): ExportEntry[] {
  const entries: ExportEntry[] = [];
  const tools = _pairToolCalls(entries);
  for (const message of messages) {
    if (message.role === "user") entries.push({ type: "prompt", text: message.content });
    else if (message.role === "assistant") {
      const text = message.parts
        .filter((part) => part.type === "text")
        .map((part) => part.text)
        .join("\n")
        .trim();
      if (text) entries.push({ type: "answer", text });
      for (const part of message.parts) if (part.type === "tool-call") tools.call(part.id, part.name, part.input);
    } else {
      for (const result of message.results) tools.settle(result.callId, result.name, result.output, result.isError === true);
    }
  }
  return entries;
}

export function runEntries(run: RunSnapshot, events: readonly LoggedEvent[]): ExportEntry[] {
  const entries: ExportEntry[] = [{ type: "prompt", text: run.prompt }];
  const { call, settle } = _pairToolCalls(entries);
  for (const event of events) {
    if (event.type === "message" && event.text.trim()) entries.push({ type: "answer", text: event.text.trim() });
    else if (event.type === "tool-call") call(event.id, event.name, event.input);
    else if (event.type === "tool-result") settle(event.id, event.name, event.output, false);
    else if (event.type === "tool-error") settle(event.id, event.name, event.error, true);
    else if (event.type === "tool-denied") settle(event.id, event.name, `denied: ${event.reason}`, true);
    else if (event.type === "compacted")
      entries.push({
        type: "compaction",
        label: `History compacted (${event.before} → ${event.after} tokens)`,
        summary: event.summary ?? "(no summary was written)",
        entries: [],
      });
    else if (event.type === "notice") entries.push({ type: "notice", text: event.text });
    else if (event.type === "error") entries.push({ type: "notice", text: `error: ${event.error}` });
  }
  return entries;
}

/** Tool calls appended to `entries` as they come; a result fills its call's entry by id, or stands alone when the call is not there. */
function _pairToolCalls(entries: ExportEntry[]) {
  const calls = new Map<string, Extract<ExportEntry, { type: "tool" }>>();
  return {
    call(id: string, name: string, input: unknown): void {
      const entry = { type: "tool" as const, name, input: describeToolInput(name, input), head: describeToolHead(name, input) };
      calls.set(id, entry);
      entries.push(entry);
    },
    settle(id: string, name: string, output: string, isError: boolean): void {
      const call = calls.get(id);
      if (call) Object.assign(call, { output, ...(isError ? { isError } : {}) });
      else entries.push({ type: "tool", name, input: "", output, ...(isError ? { isError } : {}) });
    },
  };
}

/** One line for a folded tool call's header: the input's first line, or flattened JSON, cut at `max`. */
export function toolHeadline(input: string, max = 90): string {
  const line = /^[[{]/.test(input) ? input.replace(/\s+/g, " ") : input.split("\n")[0]!;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * A folded tool call's header: the files a call changes (`parser.ts`; apply_patch: each file it
 * names), else the first line of its input as text (toolHeadline).
 */
export function describeToolHead(name: string, input: unknown): string {
  const record = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  if (["edit_file", "multi_edit", "write_file"].includes(name) && typeof record.path === "string") return toolHeadline(record.path);
  if (name === "apply_patch" && typeof record.patch === "string") {
    const files = [...record.patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((found) => found[1]!.trim());
    if (files.length > 0) return toolHeadline(files.join(", "));
  }
  return toolHeadline(describeToolInput(name, input));
}

/** A tool call's input as text: an edit as a diff, a command or a path as itself, else JSON. */
export function describeToolInput(name: string, input: unknown): string {
  const record = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const text = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : undefined);
  if (name === "edit_file" && text("oldString") !== undefined && text("newString") !== undefined)
    return _editDiff(text("path") ?? "", [{ oldString: text("oldString")!, newString: text("newString")! }]);
  if (name === "multi_edit" && Array.isArray(record.edits)) return _editDiff(text("path") ?? "", record.edits as { oldString: string; newString: string }[]);
  if (name === "apply_patch" && text("patch")) return text("patch")!;
  if (name === "bash" && text("command")) return `$ ${text("command")}`;
  const keys = Object.keys(record);
  if (keys.length === 1 && typeof record[keys[0]!] === "string") return record[keys[0]!] as string;
  return JSON.stringify(input, null, 2) ?? "";
}

/** A diff-shaped text: `--- a/<path>`, `+++ b/<path>`, then per edit `@@`, its old lines `-`, new lines `+`. */
function _editDiff(path: string, edits: readonly { oldString: string; newString: string }[]): string {
  const lines = [`--- a/${path}`, `+++ b/${path}`];
  for (const edit of edits) {
    lines.push("@@");
    if (typeof edit.oldString === "string" && edit.oldString) lines.push(...edit.oldString.split("\n").map((line) => `-${line}`));
    if (typeof edit.newString === "string" && edit.newString) lines.push(...edit.newString.split("\n").map((line) => `+${line}`));
  }
  return lines.join("\n");
}

function _compactionOf(session: SessionRecord): CompactionState {
  const parsed = v.safeParse(CompactionStateSchema, session.compaction);
  return parsed.success ? parsed.output : { spans: [] };
}
