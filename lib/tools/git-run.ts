/**
 * What the git tools (git.ts) do when called, loaded at the first call: git run through the safe
 * runner with a fixed argv, its output scoped to the workspace and read as git.ts describes it.
 */
import { checkShownBlob, scopePath, scopeRef, withholdSecretDiffs } from "./git-scope.ts";
import { prepareGit } from "../shell/safe-git.ts";
import { runProcessTree, type RunResult } from "./process-tree.ts";
import { RESULT_CAP, type ToolContext } from "./types.ts";
import type { CompleteFn } from "../providers/complete.ts";

export const GIT_TIMEOUT_MS = 30_000;
export const NOTHING_STAGED_MESSAGE = "Nothing is staged. Stage the change first, then ask again.";
export const EMPTY_REPLY_MESSAGE = "the model returned no message; ask again or write one yourself";

/** The arguments of each call, as the declarations' schemas (git.ts) produce them. */
export type StatusArgs = Record<string, never>;
export interface DiffArgs {
  staged?: boolean;
  path?: string;
}
export interface LogArgs {
  limit?: number;
  path?: string;
}
export interface ShowArgs {
  ref: string;
  path?: string;
}
export interface BlameArgs {
  path: string;
  startLine?: number;
  endLine?: number;
}
export interface BranchArgs {
  remote?: boolean;
}

const _STATUS_LINES = 200;
/** Raw `status -z` output read; far more than 200 lines need, enough to count the rest. */
const _STATUS_CHARS = 1_000_000;
const _BLAME_SPAN = 40;
const _DIFF_FOR_MESSAGE = 24_000;
const _SUBJECTS_FOR_MESSAGE = 15;
const _SUBJECT_MAX = 72;

const _STATUS_LABELS: Record<string, string> = {
  M: "modified",
  T: "type changed",
  A: "added",
  D: "deleted",
  R: "renamed",
  C: "copied",
  U: "conflicted",
  "?": "untracked",
  "!": "ignored",
};

/** git_status. */
export async function gitStatus(_input: StatusArgs, ctx: ToolContext): Promise<string> {
  const output = await _runGit(ctx, ["status", "--porcelain=v1", "-z", "--branch", "--", "."], { keepChars: _STATUS_CHARS });
  return _formatStatus(output);
}

/** git_diff. */
export async function gitDiff(input: DiffArgs, ctx: ToolContext): Promise<string> {
  const path = scopePath(ctx.root, input.path ?? ".");
  const args = ["diff", "--no-color", ...(input.staged ? ["--staged"] : []), "--", path];
  const output = withholdSecretDiffs(await _runGit(ctx, args), input.path ? [path] : []);
  return output.trim() ? output.trimEnd() : input.staged ? "Nothing staged." : "No uncommitted changes.";
}

/** git_log. */
export async function gitLog(input: LogArgs, ctx: ToolContext): Promise<string> {
  const args = [
    "log",
    `-n${input.limit ?? 15}`,
    "--date=short",
    "--no-color",
    "--format=%h  %ad  %an  %s",
    "--",
    ...(input.path ? [scopePath(ctx.root, input.path)] : []),
  ];
  try {
    const output = await _runGit(ctx, args);
    return output.trim() ? output.trimEnd() : "No commits.";
  } catch (error) {
    if ((error as Error).message.includes("does not have any commits yet")) return "No commits.";
    throw error;
  }
}

/** git_show. */
export async function gitShow(input: ShowArgs, ctx: ToolContext): Promise<string> {
  if (input.ref.startsWith("-")) throw new Error(`Refusing ref "${input.ref}": it looks like an option.`);
  const scoped = await scopeRef(input.ref, () => _runGit(ctx, ["rev-parse", "--show-prefix"]).then((out) => out.trim()));
  const path = scopePath(ctx.root, input.path ?? ".");
  const args = ["show", "--no-color", "--date=short", scoped.ref, "--", path];
  const raw = await _runGit(ctx, args);
  if (scoped.path !== undefined) checkShownBlob(ctx.root, input.ref, scoped.path, raw);
  const output = withholdSecretDiffs(raw, [...(scoped.path !== undefined ? [scoped.path] : []), ...(input.path ? [path] : [])]);
  return output.trim() ? output.trimEnd() : "Nothing to show.";
}

/** git_blame. */
export async function gitBlame(input: BlameArgs, ctx: ToolContext): Promise<string> {
  const args = ["blame", "--date=short", "-w", ..._buildBlameRange(input.startLine, input.endLine), "--", scopePath(ctx.root, input.path)];
  const output = await _runGit(ctx, args);
  return output.trim() ? output.trimEnd() : "No blame output.";
}

/** git_branch. */
export async function gitBranch(input: BranchArgs, ctx: ToolContext): Promise<string> {
  const format = "--format=%(HEAD) %(refname:short)  %(committerdate:short)  %(subject)";
  const output = await _runGit(ctx, ["branch", "--list", "--sort=-committerdate", "--no-color", format, ...(input.remote ? ["--all"] : [])]);
  const lines = output
    .split("\n")
    .map((line) => line.trimEnd())
    .filter(Boolean);
  return lines.length ? lines.join("\n") : "No branches yet.";
}

/** git_commit_message: a subject line the model drafts from the staged diff and recent subjects. */
export async function draftCommitMessage(ctx: ToolContext, complete: CompleteFn): Promise<string> {
  const staged = await _runGit(ctx, ["diff", "--staged", "--no-color", "--", "."], { keepChars: _DIFF_FOR_MESSAGE + 1 });
  const diff = withholdSecretDiffs(staged);
  if (!diff.trim()) return NOTHING_STAGED_MESSAGE;
  let subjects = "";
  try {
    subjects = await _runGit(ctx, ["log", `-n${_SUBJECTS_FOR_MESSAGE}`, "--no-color", "--format=%s"]);
  } catch (error) {
    if (!(error as Error).message.includes("does not have any commits yet")) throw error;
  }
  const reply = await complete(_COMMIT_SYSTEM_PROMPT, _buildCommitPrompt(diff, subjects), ctx.signal);
  const message = extractCommitSubject(reply);
  if (!message) throw new Error(EMPTY_REPLY_MESSAGE);
  return message;
}

const _COMMIT_SYSTEM_PROMPT = [
  "You write git commit subject lines.",
  'Read the staged diff and reply with a single line of at most 72 characters that says what the change does, in the imperative mood ("Add", "Fix", "Remove").',
  'If the recent subjects follow a convention (prefixes such as "fix:" or "docs(api):", capitalisation, a trailing period or none), follow it too.',
  "Reply with the line alone: no quotes, no code fence, no explanation, no body.",
].join("\n");

function _buildCommitPrompt(diff: string, subjects: string): string {
  const cut = diff.length > _DIFF_FOR_MESSAGE ? `${diff.slice(0, _DIFF_FOR_MESSAGE)}\n[diff cut at ${_DIFF_FOR_MESSAGE} chars]` : diff.trimEnd();
  const recent = subjects.trim()
    ? subjects
        .trim()
        .split("\n")
        .map((line) => `- ${line}`)
        .join("\n")
    : "(no commits yet)";
  return `Recent commit subjects, newest first:\n${recent}\n\nStaged diff:\n${cut}`;
}

/** The first non-empty line of a reply, without code fences or wrapping quotes, cut to 72 chars (at a space when one is near). */
export function extractCommitSubject(reply: string): string {
  const line = reply
    .split("\n")
    .map((text) => text.trim())
    .find((text) => text && !text.startsWith("```"));
  if (!line) return "";
  const unquoted = line
    .replace(/^["'`\u201c\u2018]+/, "")
    .replace(/["'`\u201d\u2019]+$/, "")
    .trim();
  if (unquoted.length <= _SUBJECT_MAX) return unquoted;
  const head = unquoted.slice(0, _SUBJECT_MAX + 1);
  const space = head.lastIndexOf(" ");
  return (space > _SUBJECT_MAX / 2 ? head.slice(0, space) : head.slice(0, _SUBJECT_MAX)).trimEnd();
}

function _buildBlameRange(startLine: number | undefined, endLine: number | undefined): string[] {
  if (startLine === undefined && endLine === undefined) return [];
  const start = startLine ?? 1;
  const end = endLine ?? start + _BLAME_SPAN - 1;
  if (end < start) throw new Error(`endLine ${end} is before startLine ${start}.`);
  return ["-L", `${start},${end}`];
}

function _formatStatus(output: string): string {
  const records = output.split("\0");
  const header = records.shift() ?? "";
  const branch = _parseBranch(header);
  const lines: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.length < 4) continue;
    const [x, y] = [record[0]!, record[1]!];
    const path = record.slice(3);
    if (x === "R" || x === "C") {
      const from = records[++i] ?? "";
      lines.push(`${from} -> ${path}  (${_describeStatus(x, y)})`);
    } else lines.push(`${path}  (${_describeStatus(x, y)})`);
  }
  if (lines.length === 0) return `On ${branch}, working tree clean.`;
  const shown = lines.slice(0, _STATUS_LINES);
  const more = lines.length > shown.length ? `\n... [${lines.length - shown.length} more]` : "";
  return `On ${branch}, ${lines.length} changed:\n${shown.join("\n")}${more}`;
}

/** Reads the `## …` line of `status --branch`: `main...origin/main [ahead 1]`, `No commits yet on main`, `HEAD (no branch)`. */
function _parseBranch(header: string): string {
  const text = header.replace(/^## /, "");
  const unborn = /^(?:No commits yet|Initial commit) on (.+)$/.exec(text);
  if (unborn) return unborn[1]!;
  if (text.startsWith("HEAD (no branch)")) return "HEAD (detached)";
  return text.split("...")[0]!.split(" [")[0]!;
}

function _describeStatus(x: string, y: string): string {
  if (x === "?" || x === "!") return _STATUS_LABELS[x]!;
  if (x === "U" || y === "U" || (x === "A" && y === "A") || (x === "D" && y === "D")) return "conflicted";
  const parts: string[] = [];
  if (x !== " ") parts.push(`staged ${_STATUS_LABELS[x] ?? x}`);
  if (y !== " ") parts.push(_STATUS_LABELS[y] ?? y);
  return parts.join(", ");
}

/**
 * Runs `git <args>` at the workspace root and returns stdout, cut to RESULT_CAP with the usual
 * `[truncated N chars]` note (or to `keepChars`, silently). Throws the messages listed atop this file.
 */
async function _runGit(ctx: ToolContext, args: string[], options: { keepChars?: number } = {}): Promise<string> {
  const keepChars = options.keepChars ?? RESULT_CAP;
  let result: RunResult;
  try {
    const call = prepareGit(ctx.root, args[0]!, args.slice(1));
    try {
      result = await runProcessTree("git", call.args, {
        cwd: call.cwd,
        env: call.env,
        timeoutMs: GIT_TIMEOUT_MS,
        signal: ctx.signal,
        keep: { chars: keepChars, end: "head" },
      });
    } finally {
      call.dispose();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error("git is not installed or not on PATH.");
    throw error;
  }
  if (result.aborted) throw new Error(`git ${args[0]} was interrupted.`);
  if (result.timedOut) throw new Error(`git ${args[0]} took longer than ${GIT_TIMEOUT_MS / 1000} s and was stopped.`);
  if (result.code !== 0) {
    const stderr = result.stderr.text.trim();
    // Outside a repository `git diff --staged` is read as `git diff --no-index` and prints its usage.
    if (/not a git repository|usage: git diff --no-index/i.test(stderr)) throw new Error(`${ctx.root} is not a git repository.`);
    throw new Error(stderr || result.stdout.text.trim() || `git exited ${result.code ?? result.exitSignal}`);
  }
  const { text, dropped } = result.stdout;
  if (options.keepChars !== undefined || dropped === 0) return text;
  return `${text}\n... [truncated ${dropped} chars]`;
}
