/**
 * An ACP prompt (content blocks) as one shiro prompt, taken the way the REPL takes a typed one:
 * text as written; a `resource_link` to a workspace file as an `@path` mention, so it is attached
 * exactly like `@file` in the REPL (lib/ui/attachments.ts: numbered lines, folders as trees,
 * secrets refused); an embedded text resource (the editor's copy, unsaved changes included) as
 * the same `<attached path="…">` block with numbered lines; an image (or an embedded image
 * resource) as an image part. Anything else is refused with one line. A file (linked or embedded)
 * the secrets classifier flags, by name or by content, is attached only when `ask` says yes: the
 * question the REPL puts before such an `@file`. With `judge`, a file the session's rules deny
 * (as read_file's call) is left out, said why.
 */
import { relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import { IMAGE_MEDIA_TYPES, type ImageMediaType, type UserMessage } from "../../messages.ts";
import { READ_LIMIT } from "../../tools/tool-limits.ts";
import { splitLines } from "../../tools/text-lines.ts";
import { capResult } from "../../tools/types.ts";
import { classifySecretContent, classifySecretPath, SECRET_SNIFF_BYTES } from "../../secrets/classify.ts";
import type { ReadJudgement } from "../../extensions/gate.ts";
import { attachMentions, renderSecretQuestion } from "../attachments.ts";

export interface PromptFromBlocks {
  prompt: string;
  images: NonNullable<UserMessage["images"]>;
  /** One line per attachment: what was attached or why not. */
  report: string[];
}

export interface PromptBlocksOptions {
  root: string;
  /** The model's name when it takes no images; undefined when it does. */
  imagesRefusedBy?: string;
  /** Puts a question to the user (a file that may hold secrets); `y` attaches it. */
  ask(question: string): Promise<string>;
  /** The session's read permission for a workspace path (`Agent.judgeAttachment`): a linked or embedded file it denies is left out. */
  judge?(path: string): Promise<ReadJudgement>;
}

export async function promptFromBlocks(blocks: readonly acp.ContentBlock[], options: PromptBlocksOptions): Promise<PromptFromBlocks> {
  const texts: string[] = [];
  const embedded: string[] = [];
  const images: PromptFromBlocks["images"] = [];
  const report: string[] = [];
  const image = (mimeType: string, data: string, what: string) => {
    if (options.imagesRefusedBy !== undefined) throw new Error(`${what}: the model ${options.imagesRefusedBy} does not take images`);
    if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(mimeType)) throw new Error(`${what}: ${mimeType} is not a PNG, JPEG, GIF or WebP image`);
    images.push({ mediaType: mimeType as ImageMediaType, data });
    texts.push(`[image: ${what}]`);
  };
  for (const block of blocks) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "image") image(block.mimeType, block.data, block.uri ?? "pasted image");
    else if (block.type === "resource_link") {
      const path = _workspacePath(block.uri, options.root);
      texts.push(path !== undefined ? `@${path}` : `[${block.name}](${block.uri})`);
    } else if (block.type === "resource") {
      const resource = block.resource;
      const inWorkspace = _workspacePath(resource.uri, options.root);
      const shown = inWorkspace ?? resource.uri;
      const denied = inWorkspace !== undefined ? (await options.judge?.(inWorkspace))?.denied : undefined;
      if (denied) {
        report.push(`${shown} not attached: ${denied}`);
        continue;
      }
      if ("text" in resource) {
        const secret = classifySecretPath(_fileURLOrPath(resource.uri), options.root) ?? classifySecretContent(resource.text.slice(0, SECRET_SNIFF_BYTES));
        if (secret && (await options.ask(renderSecretQuestion(shown, secret))).trim().toLowerCase() !== "y") {
          report.push(`${shown} left out`);
          continue;
        }
        embedded.push(`<attached path="${shown}">\n${_numbered(resource.text, shown)}\n</attached>`);
        report.push(`attached ${shown} (the editor's copy)`);
      } else image(resource.mimeType ?? "application/octet-stream", resource.blob, shown);
    } else throw new Error(`${block.type} content is not supported; send text, images, files or links`);
  }
  const attached = await attachMentions(texts.join("\n"), {
    root: options.root,
    ask: options.ask,
    judge: options.judge,
    imagesRefusedBy: options.imagesRefusedBy,
  });
  images.push(...attached.images);
  const prompt = embedded.length > 0 ? `${attached.prompt}\n\n${embedded.join("\n\n")}` : attached.prompt;
  return { prompt, images, report: [...report, ...attached.report] };
}

/** The text as read_file numbers it, capped the same way. */
function _numbered(text: string, shown: string): string {
  const lines = splitLines(text);
  if (lines.length === 0) return `${shown} is empty.`;
  const kept = lines.slice(0, READ_LIMIT).map((line, i) => `${i + 1}: ${line}`);
  if (lines.length > READ_LIMIT) kept.push(`... [${lines.length - READ_LIMIT} more lines]`);
  return capResult(kept.join("\n"));
}

/** The path a `file://` URI names (the URI itself when it is none). */
function _fileURLOrPath(uri: string): string {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : uri;
  } catch {
    return uri;
  }
}

/** A `file://` URI (or an absolute path) inside the workspace, as a root-relative posix path; undefined otherwise. */
function _workspacePath(uri: string, root: string): string | undefined {
  const abs = _fileURLOrPath(uri);
  if (!abs.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(abs)) return undefined;
  const rel = relative(root, abs);
  if (rel === "" || rel.startsWith("..") || /^[A-Za-z]:/.test(rel) || rel.startsWith(sep)) return undefined;
  return rel.split(sep).join("/");
}
