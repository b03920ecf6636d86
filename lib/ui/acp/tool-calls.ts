/**
 * How a shiro tool call looks to an ACP client, all of it read from the tool's declaration
 * (never its name): the kind from its `action`, else its `effect`; the title from its subjects
 * or paths; the locations from its declared paths; and, for a tool that declares a `write`
 * effect, a diff of every declared file it changed (the text before the call against after).
 */
import { readFile, stat } from "node:fs/promises";
import type * as acp from "@agentclientprotocol/sdk";
import { resolveInWorkspace } from "../../tools/jail.ts";
import type { ToolDefinition, WorkspaceFiles } from "../../tools/types.ts";

const _KIND_OF_EFFECT: Record<ToolDefinition["effect"], acp.ToolKind> = { read: "read", write: "edit", exec: "execute", net: "fetch" };
const _TITLE_CHARS = 100;
/** A file larger than this gets no diff: an editor cannot show it usefully. */
const _DIFF_MAX_BYTES = 1_000_000;

export function toolKindOf(tool: Pick<ToolDefinition, "effect" | "action"> | undefined): acp.ToolKind {
  if (!tool) return "other";
  return tool.action ?? _KIND_OF_EFFECT[tool.effect];
}

/** The call's declared paths, as the model spelled them; none when the declaration cannot read them. */
export function declaredPaths(tool: ToolDefinition | undefined, input: unknown, root: string): string[] {
  try {
    return tool?.paths?.(input, root) ?? [];
  } catch {
    return [];
  }
}

/** `bash: npm test`, `read_file: src/a.ts`: the tool's name and what it acts on (its subjects, else its paths). */
export function toolTitleOf(name: string, tool: ToolDefinition | undefined, input: unknown, root: string): string {
  let subjects: string[] = [];
  try {
    subjects = tool?.subjects?.(input as never) ?? [];
  } catch {
    subjects = [];
  }
  const what = (subjects.length > 0 ? subjects : declaredPaths(tool, input, root)).join(", ").replace(/\s+/g, " ").trim();
  const title = what ? `${name}: ${what}` : name;
  return title.length > _TITLE_CHARS ? `${title.slice(0, _TITLE_CHARS - 1)}…` : title;
}

/** Absolute paths of the files a call touches (inside the workspace only). */
export function toolLocationsOf(tool: ToolDefinition | undefined, input: unknown, root: string): acp.ToolCallLocation[] {
  const out: acp.ToolCallLocation[] = [];
  for (const path of declaredPaths(tool, input, root)) {
    try {
      out.push({ path: resolveInWorkspace(root, path) });
    } catch {
      // outside the workspace: the gate refuses it; nothing to point at
    }
  }
  return out;
}

/** The text of each declared file before a write-effect call; `null` where the file does not exist yet. */
export type FileTexts = Map<string, string | null>;

export async function snapshotFiles(locations: readonly acp.ToolCallLocation[], files?: WorkspaceFiles): Promise<FileTexts> {
  const texts: FileTexts = new Map();
  for (const { path } of locations) {
    const text = await _readText(path, files);
    if (text !== undefined) texts.set(path, text);
  }
  return texts;
}

/** One diff per file whose text changed since `before` (a deleted file's new text is empty). */
export async function diffsSince(before: FileTexts, files?: WorkspaceFiles): Promise<acp.ToolCallContent[]> {
  const diffs: acp.ToolCallContent[] = [];
  for (const [path, oldText] of before) {
    const now = await _readText(path, files);
    if (now === undefined) continue;
    if (now === oldText) continue;
    diffs.push({ type: "diff", path, oldText, newText: now ?? "" });
  }
  return diffs;
}

/** The file's text (through the editor when it holds the files), `null` when missing, undefined when not a diffable text file. */
async function _readText(path: string, files?: WorkspaceFiles): Promise<string | null | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return null;
  if (!info.isFile() || info.size > _DIFF_MAX_BYTES) return undefined;
  try {
    const text = files ? await files.read(path) : await readFile(path, "utf8");
    return text.includes("\0") ? undefined : text;
  } catch {
    return undefined;
  }
}
