/**
 * What an approval question shows: a heading (who wants to run what, and why it asks), then the
 * call as its tool declares it (`ApprovalRequest.preview`, from ToolDefinition.preview): for
 * edits, a numbered line diff of the change as it would land (`<path> +A -R`, two lines of
 * context, gaps as `... lines a-b unchanged`, at most 40 diff lines); for a file's whole content,
 * the diff against the file as it is (or against nothing); for a patch, the patch itself; for a
 * command, the command; with no preview, the arguments, one per line. It knows no tool by name.
 * It only reads the workspace; anything it cannot read falls back to the arguments. The call's
 * input, its preview and the file's text pass terminal-text.ts `showControls` first: a command
 * holding `\r` or `ESC [2K` cannot hide what it runs behind what the question shows.
 */
import { readFileSync } from "node:fs";
import { structuredPatch } from "diff";
import type { ApprovalRequest, CallPreview, PreviewEdit } from "../approval/request.ts";
import { resolveInWorkspace } from "../tools/jail.ts";
import type { Style } from "./style.ts";
import { showControls, showControlsDeep } from "./terminal-text.ts";

const _MAX_DIFF_LINES = 40;

export interface ApprovalViewInput {
  tool: string;
  input: unknown;
  /** What the tool declares a question shows of the call (lib/tools/call-preview.ts `previewCall`); absent: the arguments. */
  preview?: CallPreview;
  root: string;
}

/** The file's text, read through the jail; undefined when it is missing, outside or unreadable. */
function _read(root: string, path: string): string | undefined {
  try {
    return showControls(readFileSync(resolveInWorkspace(root, path), "utf8"));
  } catch {
    return undefined;
  }
}

/** A numbered diff of `before` → `after` for `path`. */
export function renderDiff(path: string, before: string, after: string, style: Style): string[] {
  const patch = structuredPatch(path, path, before, after, "", "", { context: 2 });
  let added = 0;
  let removed = 0;
  const body: string[] = [];
  let previousEnd = 0;
  for (const hunk of patch.hunks) {
    if (hunk.oldStart > previousEnd + 1 && previousEnd > 0) body.push(style.dim(`... lines ${previousEnd + 1}-${hunk.oldStart - 1} unchanged`));
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === "\\") continue;
      if (mark === "+") {
        added += 1;
        body.push(style.green(`${String(newLine).padStart(5)} + ${text}`));
        newLine += 1;
      } else if (mark === "-") {
        removed += 1;
        body.push(style.red(`${String(oldLine).padStart(5)} - ${text}`));
        oldLine += 1;
      } else {
        body.push(style.dim(`${String(newLine).padStart(5)}   ${text}`));
        oldLine += 1;
        newLine += 1;
      }
    }
    previousEnd = hunk.oldStart + hunk.oldLines - 1;
  }
  const shown = body.slice(0, _MAX_DIFF_LINES);
  if (body.length > _MAX_DIFF_LINES) shown.push(style.dim(`... ${body.length - _MAX_DIFF_LINES} more diff lines`));
  return [style.bold(`${path} +${added} -${removed}`), ...shown];
}

function _replace(text: string, oldString: string, newString: string, all: boolean): string | undefined {
  if (!oldString || !text.includes(oldString)) return undefined;
  return all ? text.split(oldString).join(newString) : text.replace(oldString, () => newString);
}

function _arguments(input: unknown, style: Style): string[] {
  if (!input || typeof input !== "object") return [style.dim(JSON.stringify(input))];
  return Object.entries(input as Record<string, unknown>).flatMap(([key, value]) => {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    const lines = text.split("\n");
    const head = lines.slice(0, 12).map((line, index) => style.dim(`${index === 0 ? `${key}: ` : "  "}${line}`));
    return lines.length > 12 ? [...head, style.dim(`  ... ${lines.length - 12} more lines`)] : head;
  });
}

export function renderApprovalDetail(raw: ApprovalViewInput, style: Style): string[] {
  const view = showControlsDeep(raw);
  const { preview } = view;
  // The file is read by the path as declared; what is shown of it and of the call is sanitised.
  const at = raw.preview && "path" in raw.preview ? raw.preview.path : "";
  if (preview?.kind === "command") return [style.bold(`$ ${preview.command}`)];
  if (preview?.kind === "content") return renderDiff(preview.path, _read(raw.root, at) ?? "", preview.content, style);
  if (preview?.kind === "edits") {
    const before = _read(raw.root, at);
    const after = _applyEdits(before, preview.edits);
    if (before !== undefined && after !== undefined) return renderDiff(preview.path, before, after, style);
  }
  if (preview?.kind === "patch") {
    const lines = preview.patch.split(/\r\n?|\n/);
    const colour = (line: string) =>
      line.startsWith("+") ? style.green(line) : line.startsWith("-") ? style.red(line) : line.startsWith("***") ? style.bold(line) : style.dim(line);
    const shown = lines.slice(0, _MAX_DIFF_LINES).map(colour);
    return lines.length > _MAX_DIFF_LINES ? [...shown, style.dim(`... ${lines.length - _MAX_DIFF_LINES} more patch lines`)] : shown;
  }
  return _arguments(view.input, style);
}

/** `text` with the edits applied in order; undefined when one of them does not apply. */
function _applyEdits(text: string | undefined, edits: readonly PreviewEdit[]): string | undefined {
  let after = text;
  for (const edit of edits) {
    if (after === undefined) return undefined;
    after = _replace(after, edit.oldString, edit.newString, edit.replaceAll === true);
  }
  return after;
}

/**
 * The whole question: `text` to print above the prompt line, `choice` as the prompt line itself.
 * With `projectRule` (the rule "always" would write to the project, approval-question.ts) the
 * choice offers `p always in this project` too.
 */
export function renderApprovalQuestion(raw: ApprovalRequest, root: string, style: Style, projectRule?: string): { text: string; choice: string } {
  const request = showControlsDeep(raw);
  if (request.sandbox !== undefined) return _renderOutsideQuestion(raw, request, root, style);
  const head = request.secret
    ? `${request.tool} wants to read ${request.secret.path}, which may hold secrets (${request.secret.why}); what it reads goes to the model provider`
    : request.plugin
      ? `${request.tool}: ${request.plugin}`
      : request.subagent
        ? `a worker subagent wants to run ${request.tool}`
        : request.repeated
          ? `${request.tool} is repeating the same call (allowed by the rules, but this is the third identical call this turn)`
          : `${request.tool} wants to run`;
  let text = `\n${style.yellow(head)}\n`;
  if (request.subagent) text += style.dim("delegated work, gated by your rules exactly as a direct call is\n");
  if (request.matched && request.matched.pattern !== "*") text += style.dim(`matched ${request.matched.tool}: "${request.matched.pattern}"\n`);
  text += `${renderApprovalDetail({ tool: raw.tool, input: raw.input, preview: raw.preview, root }, style).join("\n")}\n`;
  // "always" answers a secrets or plugin question once (lib/extensions/gate.ts), so it is not offered.
  const choice =
    request.secret || request.plugin
      ? "y allow once | n deny "
      : `y allow once | a always allow ${request.tool}${request.suggestedPattern !== "*" ? ` [${request.suggestedPattern}]` : ""}${projectRule ? " | p always in this project" : ""} | n deny `;
  return { text, choice };
}

/** The question after a sandboxed command failed because of the sandbox: run it again outside? */
function _renderOutsideQuestion(raw: ApprovalRequest, request: ApprovalRequest, root: string, style: Style): { text: string; choice: string } {
  let text = `\n${style.yellow(`the sandbox stopped ${request.tool}: ${request.sandbox}`)}\n`;
  text += `${renderApprovalDetail({ tool: raw.tool, input: raw.input, preview: raw.preview, root }, style).join("\n")}\n`;
  text += style.dim("run this command again outside the sandbox, unconfined?\n");
  const always = request.suggestedPattern ? ` | a always outside [${request.suggestedPattern}]` : "";
  return { text, choice: `y run outside once${always} | n keep it inside ` };
}
