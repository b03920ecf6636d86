/**
 * apply_patch: several file changes in one call, all or nothing.
 *
 * Format (one marker per file; `*** Begin Patch` / `*** End Patch` lines are optional and
 * ignored, CRLF is normalised, blank lines are skipped):
 *   *** Add File: <path>      then `+` lines: the whole new file (a final newline is added)
 *   *** Update File: <path>   then `-` lines to find and `+` lines to put in their place;
 *                             an `@@` line starts another such hunk in the same file
 *   *** Move to: <path>       only directly after an Update marker
 *   *** Delete File: <path>   no lines
 * Each hunk's `-` lines, joined, must occur exactly once in the file (after the hunks before it).
 *
 * Every operation is checked before anything is written; then writes happen, then deletions.
 * If a write or deletion fails midway, every file already touched is restored and every
 * directory the patch created is removed, so a failed patch leaves the tree byte-identical.
 * This module is the declaration; the parser and what a call does are patch-run.ts, loaded at
 * the first call.
 */
import { patchInputPaths } from "../approval/write-paths.ts";
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import description from "./apply-patch.md" with { type: "text" };
import { patchSummary } from "./call-summary.ts";
import { patchPreview } from "./call-preview.ts";
import type { ToolDefinition } from "./types.ts";

const ApplyPatchInput = lazySchema(() => v.object({ patch: v.string() }));
type ApplyPatchInput = v.InferOutput<typeof ApplyPatchInput>;

export const applyPatchTool: ToolDefinition<ApplyPatchInput> = {
  name: "apply_patch",
  set: "edit-plus",
  description,
  schema: ApplyPatchInput,
  effect: "write",
  // The parser reads markers through the same module (lib/approval/write-paths.ts), so rules, guards and the patch agree.
  paths: patchInputPaths,
  summary: (input) => patchSummary(input, patchInputPaths(input)),
  preview: patchPreview,
  decision: "ask",
  guidance: "add, update, move and delete files in one atomic patch",
  execute: async (input, ctx) => (await import("./patch-run.ts")).applyPatch(ctx.root, input.patch),
};
