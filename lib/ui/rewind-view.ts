/**
 * `shiro rewind`: the checkpoint list (text or `--json`), the plan of a rewind, the question on a
 * terminal, the hand-edit refusal, and what was done. The REPL's /undo, /redo and /rewind word
 * their plans with the same functions.
 */
import { createInterface } from "node:readline/promises";
import { UserError } from "../platform/errors.ts";
import type { CheckpointFile, CheckpointRecord } from "../store/checkpoints.ts";
import type { RewindPlan } from "../store/checkpoint-restore.ts";
import { writeErr, writeOut } from "./output.ts";

export interface RewindCliOptions {
  root: string;
  id?: string;
  yes: boolean;
  force: boolean;
  conversation: boolean;
  json: boolean;
}

/** One checkpoint as `--json` prints it. */
export function checkpointJson(record: CheckpointRecord): Record<string, unknown> {
  return {
    id: record.id,
    at: record.at,
    sessionId: record.sessionId,
    runId: record.runId,
    prompt: record.prompt,
    files: record.files,
    notCovered: record.notCovered,
    ...(record.undone ? { undone: record.undone } : {}),
    ...(record.dirs ? { dirs: record.dirs.map((entry) => entry.dir) } : {}),
  };
}

/** `+3 -1`, `binary`, or the kind of change when lines say nothing. */
export function describeFile(file: CheckpointFile): string {
  const sign = { added: "A", modified: "M", deleted: "D", mode: "m", type: "T" }[file.change];
  const lines = file.binary ? " (binary)" : file.added !== undefined ? ` (+${file.added} -${file.removed ?? 0})` : "";
  return `${sign} ${file.path}${lines}`;
}

/** The list, newest first: id, time, session, prompt, then each file with its +/- lines. */
export function formatCheckpointList(records: readonly CheckpointRecord[], ignored: readonly string[]): string {
  if (records.length === 0) return "no checkpoints in this folder yet: a turn that changes files leaves one\n";
  const lines: string[] = [];
  for (const record of [...records].reverse()) {
    const added = record.files.reduce((sum, file) => sum + (file.added ?? 0), 0);
    const removed = record.files.reduce((sum, file) => sum + (file.removed ?? 0), 0);
    lines.push(
      `${record.id.slice(0, 13)}  ${record.at.replace("T", " ").slice(0, 19)}  session ${record.sessionId.slice(0, 8)}  ${record.files.length} file${record.files.length === 1 ? "" : "s"} +${added} -${removed}${record.undone ? "  (taken back)" : ""}`,
    );
    lines.push(`  ${JSON.stringify(record.prompt.replace(/\s+/g, " ").slice(0, 100))}`);
    for (const file of record.files) lines.push(`    ${describeFile(file)}`);
    for (const left of record.notCovered) lines.push(`    not covered: ${left.path} (${_why(left.why)})`);
  }
  if (ignored.length > 0) lines.push(`never covered (ignored by .gitignore or .shiroignore): ${ignored.join(", ")}`);
  return `${lines.join("\n")}\n`;
}

function _why(why: CheckpointRecord["notCovered"][number]["why"]): string {
  return why === "over-size-cap" ? "over the size cap, checkpoints.maxFileBytes" : why === "repository" ? "a git repository of its own" : "ignored";
}

/** What a plan will do, one line per path. */
export function formatPlan(plan: RewindPlan): string {
  const count = plan.records.length;
  const head =
    plan.direction === "undo"
      ? `taking back ${count} checkpoint${count === 1 ? "" : "s"} (from ${plan.records[0]!.id.slice(0, 13)}, "${plan.records[0]!.prompt.slice(0, 60)}"):`
      : `putting back checkpoint ${plan.records[0]!.id.slice(0, 13)} ("${plan.records[0]!.prompt.slice(0, 60)}"):`;
  const verbs = {
    restore: "restore",
    remove: "remove",
    "make-dir": "make folder",
    "remove-dir": "remove folder",
    "folder-mode": "restore the permissions of folder",
  };
  const lines = plan.steps.map((step) => `  ${verbs[step.action]} ${step.path}`);
  return `${head}\n${lines.length > 0 ? lines.join("\n") : "  (the files are already as they were)"}\n`;
}

/** The refusal over hand edits: each file named, nothing changed. */
export function formatHandEdits(plan: RewindPlan, how: string): string {
  const names = plan.handEdited.map((path) => `  ${path}`).join("\n");
  return `refusing: ${plan.handEdited.length === 1 ? "this file was" : "these files were"} changed since shiro's checkpoint, by hand or by another program:\n${names}\nnothing was changed; ${how}\n`;
}

/** `shiro rewind [id]`: returns the exit code. From a subfolder it means the workspace above it that has checkpoints. */
export async function runRewindCli(options: RewindCliOptions): Promise<number> {
  const { listCheckpoints } = await import("../store/checkpoints.ts");
  const { checkpointRootFor, findCheckpoint, planRewindTo, rewindSavedConversation } = await import("../agent/rewind.ts");
  const root = checkpointRootFor(options.root);
  if (!options.id) {
    const records = listCheckpoints(root);
    if (options.json) {
      writeOut(`${JSON.stringify([...records].reverse().map(checkpointJson), null, 2)}\n`);
      return 0;
    }
    if (root !== options.root) writeOut(`checkpoints of ${root}\n`);
    writeOut(formatCheckpointList(records, records.length > 0 ? await _ignored(root) : []));
    return 0;
  }
  const record = findCheckpoint(root, options.id);
  const plan = await planRewindTo(root, record);
  if (plan.handEdited.length > 0 && !options.force) {
    writeErr(formatHandEdits(plan, "add --force to overwrite them with the checkpoint"));
    return 1;
  }
  if (!options.yes) {
    if (!process.stdin.isTTY || !process.stdout.isTTY) throw new UserError("add --yes to rewind without a question (no terminal to ask on)", 2);
    writeOut(formatPlan(plan));
    if (options.conversation) writeOut(`and session ${record.sessionId.slice(0, 8)} goes back to before that prompt\n`);
    if (!(await _confirm("Rewind? y yes | n no "))) {
      writeOut("nothing was changed\n");
      return 1;
    }
  }
  await plan.apply(options.force);
  const removed = options.conversation ? rewindSavedConversation(record) : undefined;
  writeOut(`rewound ${plan.steps.length} path${plan.steps.length === 1 ? "" : "s"} to before checkpoint ${record.id.slice(0, 13)}\n`);
  if (removed !== undefined)
    writeOut(
      `session ${record.sessionId.slice(0, 8)}: ${removed} message${removed === 1 ? "" : "s"} taken back (kept in its archive, recall_discarded finds them)\n`,
    );
  return 0;
}

async function _ignored(root: string): Promise<string[]> {
  const { hasGit } = await import("../store/git-probe.ts");
  if (!hasGit()) return [];
  const { openCheckpointRepo, withCheckpointLock } = await import("../store/checkpoints.ts");
  const { listIgnored } = await import("../store/checkpoint-capture.ts");
  const repo = await openCheckpointRepo(root);
  return withCheckpointLock(root, () => listIgnored(repo, 20));
}

async function _confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  try {
    return ["y", "yes"].includes((await rl.question(question)).trim().toLowerCase());
  } finally {
    rl.close();
  }
}
