/**
 * `@path` in a prompt attaches what it names, after the prompt text, one block each:
 *   <attached path="src/a.ts">
 *   1: first line …                       (numbered and capped exactly like read_file)
 *   </attached>
 * A folder attaches its tree (ignore-aware, 3 levels, at most 200 entries). The `@path` stays in
 * the text. A token that names nothing in the workspace (an e-mail, a decorator, a path outside
 * it) is sent as typed, and said so. A file the secrets classifier flags (name, real path or
 * content) is attached only when `ask` says yes (the same question read_file's gate asks), or
 * without asking when a rule naming it allows it. With `judge` (the session's gate, lib/agent:
 * `Agent.judgeAttachment`) every file, folder and image is first judged as the read tool's call
 * for that path: a deny rule (config, trusted `.claude/settings.json`, `--disallowed-tools`) or a
 * guard plugin's refusal leaves it out, saying why.
 * An image file (lib/ui/attach-image.ts) goes as an image part, and the text keeps `[image: path]`.
 * `@server:scheme://…` (Claude Code's MCP resource mention) attaches that server's resource as
 * `<attached resource="server:uri">…</attached>` when `readResource` knows the server.
 */
import { statSync } from "node:fs";
import { READ_LIMIT } from "../tools/tool-limits.ts";
import { resolveInWorkspace } from "../tools/jail.ts";
import { capResult } from "../tools/types.ts";
import type { ReadJudgement } from "../extensions/gate.ts";
import { describeImage, isImagePath, readImageAttachment, type AttachedImage } from "./attach-image.ts";

export const ATTACHED_TREE_DEPTH = 3;
export const ATTACHED_TREE_ENTRIES = 200;

export interface AttachOptions {
  root: string;
  /** Puts a question to the user (a file that may hold secrets, a plugin's question); `y` or `yes` attaches it. Headless: always no. */
  ask(question: string): Promise<string>;
  /** The session's read permission for a workspace path; without it nothing but the secrets question is asked. */
  judge?(path: string): Promise<ReadJudgement>;
  /** The model's name when it does not take images (an `@pic.png` is refused then); undefined when it does. */
  imagesRefusedBy?: string;
  /** An MCP server's resource as text; undefined when no connected server of that name offers resources. */
  readResource?: (server: string, uri: string) => Promise<string | undefined>;
}

export interface AttachResult {
  /** The prompt with the attachments after it (the prompt unchanged when nothing was attached). */
  prompt: string;
  /** One line per `@` token, for the terminal: what was attached or why not. */
  report: string[];
  /** Images attached (`@pic.png`), in mention order. */
  images: AttachedImage[];
}

export async function attachMentions(text: string, options: AttachOptions): Promise<AttachResult> {
  const blocks: string[] = [];
  const report: string[] = [];
  const seen = new Set<string>();
  const images: AttachedImage[] = [];
  for (const match of text.matchAll(/(?:^|\s)@(\S+)/g)) {
    const resource = /^([A-Za-z0-9_][A-Za-z0-9_.-]*):([A-Za-z][A-Za-z0-9+.-]*:\/\/\S+)$/.exec(match[1]!);
    if (resource && options.readResource && !seen.has(match[1]!)) {
      seen.add(match[1]!);
      try {
        const body = await options.readResource(resource[1]!, resource[2]!);
        if (body !== undefined) {
          blocks.push(`<attached resource="${match[1]}">\n${capResult(body)}\n</attached>`);
          report.push(`attached @${match[1]} (MCP resource)`);
          continue;
        }
      } catch (error) {
        report.push(`@${match[1]} not attached: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
    }
    const path = _existingPath(options.root, match[1]!);
    if (path === undefined) {
      report.push(`@${match[1]} names no file or folder in the workspace; sent as typed`);
      continue;
    }
    if (seen.has(path)) continue;
    seen.add(path);
    try {
      const judged = await options.judge?.(path);
      if (judged?.denied) {
        report.push(`@${path} not attached: ${judged.denied}`);
        continue;
      }
      if (judged?.question && !_yes(await options.ask(`${judged.question} y attach once | n leave it out `))) {
        report.push(`@${path} left out: ${judged.question}`);
        continue;
      }
      if (isImagePath(path) && !statSync(resolveInWorkspace(options.root, path)).isDirectory()) {
        const image = await readImageAttachment(options.root, path, options.imagesRefusedBy);
        images.push(image);
        blocks.push(`[image: ${path}]`);
        report.push(`attached @${path} (${describeImage(image)})`);
        continue;
      }
      const attached = await _attachOne(path, options, judged?.secretAllowed === true);
      if (attached === undefined) {
        report.push(`@${path} left out`);
        continue;
      }
      blocks.push(`<attached path="${path}">\n${attached.body}\n</attached>`);
      report.push(`attached @${path} (${attached.what})`);
    } catch (error) {
      report.push(`@${path} not attached: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { prompt: blocks.length > 0 ? `${text}\n\n${blocks.join("\n\n")}` : text, report, images };
}

/** `attachMentions`, then one line per `@` token through `note` (what was attached, or why not). */
export async function attachAndReport(
  text: string,
  options: AttachOptions & { note(line: string): void },
): Promise<{ prompt: string; images: AttachedImage[] }> {
  const result = await attachMentions(text, options);
  for (const line of result.report) options.note(line);
  return { prompt: result.prompt, images: result.images };
}

/** The token as a workspace path, or without trailing punctuation (`see @a.ts,`); undefined when neither exists inside the workspace. */
function _existingPath(root: string, token: string): string | undefined {
  for (const candidate of [token, token.replace(/[.,;:!?)\]'"`]+$/, "")]) {
    if (!candidate) continue;
    try {
      statSync(resolveInWorkspace(root, candidate));
      return candidate.replace(/\/+$/, "") || candidate;
    } catch {
      // not there, or outside the workspace
    }
  }
  return undefined;
}

async function _attachOne(path: string, options: AttachOptions, secretAllowed: boolean): Promise<{ body: string; what: string } | undefined> {
  // The file tools' implementation (the walker, the checked reads, read_file's numbering) loads
  // with the first attachment, not with the REPL or an ACP session.
  if (statSync(resolveInWorkspace(options.root, path)).isDirectory()) {
    const { walkWorkspace } = await import("../tools/walk.ts");
    const lines: string[] = [];
    for await (const entry of walkWorkspace(options.root, { dir: path, maxDepth: ATTACHED_TREE_DEPTH, limit: ATTACHED_TREE_ENTRIES + 1 })) {
      lines.push(`${"  ".repeat(entry.depth - 1)}${entry.name}${entry.dir ? "/" : ""}`);
    }
    if (lines.length > ATTACHED_TREE_ENTRIES) lines.splice(ATTACHED_TREE_ENTRIES, Infinity, `... [${ATTACHED_TREE_ENTRIES}-entry limit reached]`);
    return { body: lines.join("\n") || "(empty folder)", what: `folder, ${Math.min(lines.length, ATTACHED_TREE_ENTRIES)} entries` };
  }
  const [{ readWorkspaceFile }, { readNumberedLines }] = await Promise.all([import("../tools/file-read.ts"), import("../tools/fs-run.ts")]);
  const { secret } = await readWorkspaceFile(options.root, path);
  if (secret && !secretAllowed && !_yes(await options.ask(renderSecretQuestion(path, secret)))) return undefined;
  const body = capResult(await readNumberedLines(options.root, path, 1, READ_LIMIT, Boolean(secret)));
  const shown = body.split("\n").filter((line) => /^\d+: /.test(line)).length;
  return { body, what: `${shown} line${shown === 1 ? "" : "s"}` };
}

function _yes(answer: string): boolean {
  return ["y", "yes"].includes(answer.trim().toLowerCase());
}

/** The question put before a file that may hold secrets is attached (worded as read_file's). */
export function renderSecretQuestion(path: string, why: string): string {
  return `@${path} may hold secrets (${why}); what is attached goes to the model provider. y attach once | n leave it out `;
}
