/**
 * grep: a regex search of file contents across the workspace.
 *
 * Uses ripgrep when `rg` is on PATH (argv spawn, never a shell; killed after RG_TIMEOUT_MS or on
 * interrupt), else the ignore-aware walker. Both honour .gitignore and .shiroignore, skip `.git`,
 * `node_modules`, binary files, symbolic links and files a grep rule denies, and leave out every
 * file the secrets classifier flags (lib/secrets/classify.ts, by name or content), naming them in
 * a closing note. If rg
 * fails (exit code above 1, e.g. a regex only JavaScript accepts), the walker answers instead.
 *
 * Result: `path:line: text` lines (text trimmed, cut at GREP_LINE_CHARS), sorted by path, at most
 * GREP_HIT_CAP, then `... [hit limit 200]`; `No matches.` when nothing matched; then, when files
 * were left out, `[skipped N file(s) that may hold secrets: a, b]`.
 * This module is the declaration; the search is grep-run.ts, loaded at the first call.
 */
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import description from "./grep.md" with { type: "text" };
import { fieldPaths } from "../approval/write-paths.ts";
import type { ToolDefinition } from "./types.ts";
import { takeFields } from "./claude-code.ts";

const GrepInput = lazySchema(() =>
  v.object({
    pattern: v.string(),
    include: v.optional(v.string(), "**/*"),
    ignoreCase: v.optional(v.boolean()),
    includeIgnored: v.optional(v.boolean()),
  }),
);
type GrepInput = v.InferOutput<typeof GrepInput>;

export const grepTool: ToolDefinition<GrepInput> = {
  name: "grep",
  set: "core",
  description,
  schema: GrepInput,
  effect: "read",
  action: "search",
  // Its path is the include glob (workspace-relative), so a path rule such as `secrets/*` meets `./secrets/*` too.
  paths: (input) => fieldPaths("include")(input),
  secretPaths: "skip",
  decision: "allow",
  guidance: "search file contents by regex",
  claudeCode: {
    name: "Grep",
    input: (args, root) => ({ pattern: args.pattern, path: root, glob: args.include, "-i": args.ignoreCase === true }),
    args: (input) =>
      takeFields(input, [
        ["pattern", "pattern", "string"],
        ["glob", "include", "string"],
        ["-i", "ignoreCase", "boolean"],
      ]),
  },
  subjects: (input) => [input.pattern],
  execute: async (input, ctx) => (await import("./grep-run.ts")).grepFiles(input, ctx),
};
