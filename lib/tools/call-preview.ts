/**
 * Pieces of a tool's `preview` declaration (ToolDefinition.preview): what an approval question
 * shows of a call. They read the RAW input, so every field is type-checked here; a call whose
 * fields do not read is shown by its arguments instead.
 */
import type { CallPreview, PreviewEdit } from "../approval/request.ts";
import type { ToolDefinition } from "./types.ts";

const _record = (input: unknown): Record<string, unknown> => (input !== null && typeof input === "object" ? (input as Record<string, unknown>) : {});

/** What a question shows of a call: the tool's declared preview, else a shell tool's command, else nothing (the arguments). */
export function previewCall(tool: Pick<ToolDefinition, "preview" | "command"> | undefined, input: unknown): CallPreview | undefined {
  const declared = tool?.preview?.(input);
  if (declared) return declared;
  const command = tool?.command?.(input);
  return typeof command === "string" ? { kind: "command", command } : undefined;
}

/** A whole file written: `path` and `content` fields (by default those names). */
export function contentPreview(pathField = "path", contentField = "content"): (input: unknown) => CallPreview | undefined {
  return (input) => {
    const record = _record(input);
    const path = record[pathField];
    const content = record[contentField];
    return typeof path === "string" && path && typeof content === "string" ? { kind: "content", path, content } : undefined;
  };
}

/** Replacements in one file: `path`, then either `edits` (each `oldString`, `newString`, `replaceAll`) or one such edit inline. */
export function editsPreview(input: unknown): CallPreview | undefined {
  const record = _record(input);
  if (typeof record.path !== "string" || !record.path) return undefined;
  const listed = Array.isArray(record.edits) ? record.edits : record.edits === undefined ? [record] : undefined;
  if (!listed) return undefined;
  const edits: PreviewEdit[] = [];
  for (const item of listed) {
    const edit = _record(item);
    if (typeof edit.oldString !== "string" || typeof edit.newString !== "string") return undefined;
    edits.push({ oldString: edit.oldString, newString: edit.newString, replaceAll: edit.replaceAll === true });
  }
  return { kind: "edits", path: record.path, edits };
}

/** A patch in the `patch` field. */
export function patchPreview(input: unknown): CallPreview | undefined {
  const patch = _record(input).patch;
  return typeof patch === "string" ? { kind: "patch", patch } : undefined;
}
