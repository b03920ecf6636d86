/**
 * The git tools: read-only views of the repository at the workspace root, plus a commit message
 * drafted by the model. Each runs `git` with a fixed argv (never a shell) and a 30 s timeout,
 * through the safe runner (lib/shell/safe-git.ts): nothing the repository configures can run.
 *
 * Nothing the model supplies can become a git option: paths always follow `--`, and a ref that
 * starts with `-` is refused. Paths, `REF:PATH` and diffs stay inside the workspace, and diff
 * sections about possible secrets are withheld (git-scope.ts). Failures throw: `<root> is not a git repository.`,
 * `git is not installed or not on PATH.`, or git's own message verbatim.
 *
 * This module is their declarations; running git is git-run.ts, loaded at the first call.
 */
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import { fieldPaths, refPath } from "../approval/write-paths.ts";
import type { ToolDefinition } from "./types.ts";
import branchDescription from "./git-branch.md" with { type: "text" };
import blameDescription from "./git-blame.md" with { type: "text" };
import commitMessageDescription from "./git-commit-message.md" with { type: "text" };
import diffDescription from "./git-diff.md" with { type: "text" };
import logDescription from "./git-log.md" with { type: "text" };
import showDescription from "./git-show.md" with { type: "text" };
import statusDescription from "./git-status.md" with { type: "text" };
import type { CompleteFn } from "../providers/complete.ts";

export interface GitToolsOptions {
  /** Enables git_commit_message. */
  complete?: CompleteFn;
}

/** The prompt line the six read-only git tools share (the prompt lists them together). */
const GIT_GUIDANCE = "read-only git: status, diff, log, show, blame, branch";

const _Path = lazySchema(() => v.pipe(v.string(), v.minLength(1, "path must not be empty")));
const _Line = (name: string) => v.pipe(v.number(), v.integer(`${name} must be a whole number`), v.minValue(1, `${name} must be at least 1`));

const StatusInput = lazySchema(() => v.object({}));
const DiffInput = lazySchema(() =>
  v.object({
    staged: v.optional(v.pipe(v.boolean(), v.description("Diff the staged changes instead of the working tree."))),
    path: v.optional(v.pipe(_Path, v.description("Limit the diff to this file or folder."))),
  }),
);
const LogInput = lazySchema(() =>
  v.object({
    limit: v.optional(
      v.pipe(
        v.number(),
        v.integer("limit must be a whole number"),
        v.minValue(1, "limit must be at least 1"),
        v.maxValue(40, "limit must be at most 40"),
        v.description("Commits to list, 1-40 (default 15)."),
      ),
    ),
    path: v.optional(v.pipe(_Path, v.description("Only commits that touched this file or folder."))),
  }),
);
const ShowInput = lazySchema(() =>
  v.object({
    ref: v.pipe(v.string(), v.minLength(1, "ref must not be empty"), v.description("Commit hash, branch, tag or expression such as HEAD~1.")),
    path: v.optional(v.pipe(_Path, v.description("Limit the diff to this file or folder."))),
  }),
);
const BlameInput = lazySchema(() =>
  v.object({
    path: v.pipe(_Path, v.description("The file to blame.")),
    startLine: v.optional(v.pipe(_Line("startLine"), v.description("First line, 1-based; alone it covers 40 lines."))),
    endLine: v.optional(v.pipe(_Line("endLine"), v.description("Last line, inclusive."))),
  }),
);
const BranchInput = lazySchema(() =>
  v.object({
    remote: v.optional(v.pipe(v.boolean(), v.description("Include remote-tracking branches."))),
  }),
);

type StatusInput = v.InferOutput<typeof StatusInput>;
type DiffInput = v.InferOutput<typeof DiffInput>;
type LogInput = v.InferOutput<typeof LogInput>;
type ShowInput = v.InferOutput<typeof ShowInput>;
type BlameInput = v.InferOutput<typeof BlameInput>;
type BranchInput = v.InferOutput<typeof BranchInput>;

/** The git tools; git_commit_message is included only when `complete` is given. */
export function createGitTools(options: GitToolsOptions): ToolDefinition[] {
  const tools: ToolDefinition[] = [gitStatusTool, gitDiffTool, gitLogTool, gitShowTool, gitBlameTool, gitBranchTool];
  if (options.complete) tools.push(_createCommitMessageTool(options.complete));
  return tools;
}

const gitStatusTool: ToolDefinition<StatusInput> = {
  name: "git_status",
  set: "git",
  guidance: GIT_GUIDANCE,
  description: statusDescription,
  schema: StatusInput,
  effect: "read",
  decision: "allow",
  execute: async (input, ctx) => (await import("./git-run.ts")).gitStatus(input, ctx),
};

const gitDiffTool: ToolDefinition<DiffInput> = {
  name: "git_diff",
  set: "git",
  guidance: GIT_GUIDANCE,
  description: diffDescription,
  schema: DiffInput,
  effect: "read",
  decision: "allow",
  paths: fieldPaths("path"),
  execute: async (input, ctx) => (await import("./git-run.ts")).gitDiff(input, ctx),
};

const gitLogTool: ToolDefinition<LogInput> = {
  name: "git_log",
  set: "git",
  guidance: GIT_GUIDANCE,
  description: logDescription,
  schema: LogInput,
  effect: "read",
  decision: "allow",
  paths: fieldPaths("path"),
  execute: async (input, ctx) => (await import("./git-run.ts")).gitLog(input, ctx),
};

const gitShowTool: ToolDefinition<ShowInput> = {
  name: "git_show",
  set: "git",
  guidance: GIT_GUIDANCE,
  description: showDescription,
  schema: ShowInput,
  effect: "read",
  decision: "allow",
  subjects: (input) => [input.ref],
  paths: (input) => [...refPath((input as { ref?: unknown } | null)?.ref), ...fieldPaths("path")(input)],
  execute: async (input, ctx) => (await import("./git-run.ts")).gitShow(input, ctx),
};

const gitBlameTool: ToolDefinition<BlameInput> = {
  name: "git_blame",
  set: "git",
  guidance: GIT_GUIDANCE,
  description: blameDescription,
  schema: BlameInput,
  effect: "read",
  decision: "allow",
  paths: fieldPaths("path"),
  execute: async (input, ctx) => (await import("./git-run.ts")).gitBlame(input, ctx),
};

const gitBranchTool: ToolDefinition<BranchInput> = {
  name: "git_branch",
  set: "git",
  guidance: GIT_GUIDANCE,
  description: branchDescription,
  schema: BranchInput,
  effect: "read",
  decision: "allow",
  execute: async (input, ctx) => (await import("./git-run.ts")).gitBranch(input, ctx),
};

/** The six read-only git tools. */
export const gitTools: ToolDefinition[] = createGitTools({});

function _createCommitMessageTool(complete: CompleteFn): ToolDefinition<StatusInput> {
  return {
    name: "git_commit_message",
    set: "git",
    description: commitMessageDescription,
    schema: StatusInput,
    effect: "read",
    decision: "allow",
    guidance: "draft a commit message for the staged change",
    execute: async (_input, ctx) => (await import("./git-run.ts")).draftCommitMessage(ctx, complete),
  };
}
