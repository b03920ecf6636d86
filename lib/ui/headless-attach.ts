/**
 * A headless prompt's attachments: every `@path` it mentions, attached exactly as the REPL does
 * (lib/ui/attachments.ts: same caps, same jail, the same read permission as read_file's calls:
 * config `permission`, trusted `.claude/settings.json`, this run's `--allowed-tools` /
 * `--disallowed-tools`), and each `-i FILE` image. Nobody can answer the secrets question, so a
 * file that may hold secrets is attached only when a rule naming it (its pattern is not `*`)
 * allows it (`--allowed-tools "Read(.env)"`). Each `@` token's line goes to stderr as `[attach] …`.
 * An `-i` image that cannot be attached stops the run before it starts (a UsageError).
 */
import { UsageError } from "../platform/errors.ts";
import type { ReadJudgement } from "../extensions/gate.ts";
import type { AttachedImage } from "./attach-image.ts";

export interface HeadlessAttachOptions {
  root: string;
  /** `-i` files, workspace paths (jailed). */
  images: readonly string[];
  /** The session's read permission for a path (`Agent.judgeAttachment`). */
  judge(path: string): Promise<ReadJudgement>;
  /** The model's name when it takes no images, else undefined. */
  imagesRefusedBy?: string;
  note(line: string): void;
}

export async function attachHeadless(prompt: string, options: HeadlessAttachOptions): Promise<{ prompt: string; images: AttachedImage[] }> {
  // The attachment code loads only for a prompt that names something (`@path`) or an image (`-i`).
  const mentioned = prompt.includes("@")
    ? await (await import("./attachments.ts")).attachMentions(prompt, {
        root: options.root,
        ask: async () => "no",
        judge: options.judge,
        imagesRefusedBy: options.imagesRefusedBy,
      })
    : { prompt, report: [], images: [] };
  for (const line of mentioned.report)
    options.note(`[attach] ${line}${/ left out$/.test(line) ? " (it may hold secrets: a read_file rule naming it allows it)" : ""}`);
  const images = [...mentioned.images];
  const labels: string[] = [];
  for (const path of options.images) {
    const { readImageAttachment } = await import("./attach-image.ts");
    try {
      images.push(await readImageAttachment(options.root, path, options.imagesRefusedBy));
      labels.push(`[image: ${path}]`);
    } catch (error) {
      throw new UsageError(`-i ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { prompt: labels.length > 0 ? `${mentioned.prompt}\n\n${labels.join("\n")}` : mentioned.prompt, images };
}
