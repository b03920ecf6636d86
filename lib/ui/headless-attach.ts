/**
 * A headless prompt's attachments: every `@path` it mentions, attached exactly as the REPL does
 * (lib/ui/attachments.ts: same caps, same jail), and each `-i FILE` image. Nobody can answer the
 * secrets question, so a file that may hold secrets is attached only when a permission rule for
 * `read_file` names it (its pattern is not `*`) and allows it: config `permission`, or this run's
 * `--allowed-tools "Read(.env)"`. Each `@` token's line goes to stderr as `[attach] …`.
 * An `-i` image that cannot be attached stops the run before it starts (a UsageError).
 */
import { UsageError } from "../platform/errors.ts";
import { evaluatePermission, normalizeRulePath, parsePermissionRules, type PermissionConfig } from "../approval/rules.ts";
import { layerRunRules } from "../approval/run-rules.ts";
import { findProjectRoot } from "../config/project.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { attachMentions } from "./attachments.ts";
import { readImageAttachment, type AttachedImage } from "./attach-image.ts";

export interface HeadlessAttachOptions {
  root: string;
  /** `-i` files, workspace paths (jailed). */
  images: readonly string[];
  /** The tools rules are mapped onto (their declarations), the config's `permission` and the run's rule flags. */
  tools: readonly ToolDefinition[];
  permission?: PermissionConfig;
  allowed?: readonly string[];
  disallowed?: readonly string[];
  /** The model's name when it takes no images, else undefined. */
  imagesRefusedBy?: string;
  note(line: string): void;
}

export async function attachHeadless(prompt: string, options: HeadlessAttachOptions): Promise<{ prompt: string; images: AttachedImage[] }> {
  const places = { root: findProjectRoot(options.root), cwd: options.root };
  const layered = layerRunRules(options.permission, options.tools, { allowed: options.allowed, disallowed: options.disallowed }, places);
  const rules = parsePermissionRules(layered.permission);
  const allowSecret = (path: string) => {
    const verdict = evaluatePermission(rules, "read_file", [normalizeRulePath(path, options.root)]);
    return verdict.decision === "allow" && verdict.matched !== undefined && verdict.matched.pattern !== "*";
  };
  const mentioned = prompt.includes("@")
    ? await attachMentions(prompt, { root: options.root, ask: async () => "no", allowSecret, imagesRefusedBy: options.imagesRefusedBy })
    : { prompt, report: [], images: [] };
  for (const line of mentioned.report)
    options.note(`[attach] ${line}${/ left out$/.test(line) ? " (it may hold secrets: a read_file rule naming it allows it)" : ""}`);
  const images = [...mentioned.images];
  const labels: string[] = [];
  for (const path of options.images) {
    try {
      images.push(await readImageAttachment(options.root, path, options.imagesRefusedBy));
      labels.push(`[image: ${path}]`);
    } catch (error) {
      throw new UsageError(`-i ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { prompt: labels.length > 0 ? `${mentioned.prompt}\n\n${labels.join("\n")}` : mentioned.prompt, images };
}
