/**
 * Rewinding a workspace, and optionally a session, to before a checkpoint: what `shiro rewind`,
 * `/undo`, `/redo` and `/rewind` share. Finding the checkpoint, planning (with the hand-edit
 * check), and cutting a conversation back live here; asking and wording live in lib/ui/.
 *
 * A conversation taken back keeps what it lost: the messages from the checkpoint's prompt on go
 * to the session's compaction archive (lib/context-state/state.ts), where `recall_discarded`
 * searches them, and the exchanges of those turns leave the exchange log.
 */
import { UserError } from "../platform/errors.ts";
import { loadConfigFile } from "../config/config.ts";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { checkpointsFile, listCheckpoints, openCheckpointRepo, type CheckpointRecord } from "../store/checkpoints.ts";
import { hasGit } from "../store/git-probe.ts";
import { planRedo, planUndo, redoCandidate, type RewindPlan } from "../store/checkpoint-restore.ts";
import { loadSession, openSessionWriter } from "../store/sessions.ts";
import type { SessionRecord } from "../store/session-record.ts";
import { readCompactionState } from "./context/manager.ts";
import { checkpointSettings } from "./turn-checkpoint.ts";

/**
 * The workspace whose checkpoints `shiro rewind` in `cwd` means: `cwd` itself when it has any,
 * else the nearest folder above it that has (a session that ran there checkpointed `cwd` too),
 * else `cwd`. Checkpoints are stored by the folder a session ran in, so this is the same key.
 */
export function checkpointRootFor(cwd: string): string {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(checkpointsFile(dir))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/** The checkpoint `idOrPrefix` names among this workspace's; UserError when none or several do. */
export function findCheckpoint(root: string, idOrPrefix: string): CheckpointRecord {
  const wanted = idOrPrefix.trim().toLowerCase();
  const found = listCheckpoints(root).filter((record) => record.id.startsWith(wanted));
  if (wanted === "" || found.length === 0) throw new UserError(`no checkpoint ${idOrPrefix} in ${root}; \`shiro rewind\` lists them`);
  if (found.length > 1) throw new UserError(`checkpoint prefix ${idOrPrefix} is ambiguous (${found.length} match); give more of the id`);
  return found[0]!;
}

function _requireGit(): void {
  if (!hasGit()) throw new UserError("rewinding needs git on PATH (the checkpoint store is a git repository); install git and try again");
}

function _maxFileBytes(maxFileBytes?: number): number {
  return maxFileBytes ?? checkpointSettings(loadConfigFile()).maxFileBytes;
}

/** The plan that takes back `record` and every later checkpoint in force. */
export async function planRewindTo(root: string, record: CheckpointRecord, maxFileBytes?: number): Promise<RewindPlan> {
  _requireGit();
  return planUndo(await openCheckpointRepo(root), record, _maxFileBytes(maxFileBytes));
}

/** The plan that takes back the newest checkpoint in force (of `sessionId` when given), or undefined when there is none. */
export async function planUndoLast(root: string, sessionId?: string, maxFileBytes?: number): Promise<RewindPlan | undefined> {
  const last = listCheckpoints(root)
    .filter((record) => !record.undone && (sessionId === undefined || record.sessionId === sessionId))
    .at(-1);
  return last ? planRewindTo(root, last, maxFileBytes) : undefined;
}

/** The plan that puts the last taken-back checkpoint forward again, or undefined when nothing can be redone. */
export async function planRedoNext(root: string, maxFileBytes?: number): Promise<RewindPlan | undefined> {
  const next = redoCandidate(root);
  if (!next) return undefined;
  _requireGit();
  return planRedo(await openCheckpointRepo(root), next, _maxFileBytes(maxFileBytes));
}

/**
 * Cuts `session` back to before the prompt at `messageIndex`; the rest goes to its archive.
 * Returns how many messages left the transcript. Throws when the transcript no longer has that
 * prompt where the checkpoint saw it (it was compacted since).
 */
export function cutConversation(session: SessionRecord, record: Pick<CheckpointRecord, "messageIndex" | "prompt"> & { runId?: string }): number {
  const at = record.messageIndex;
  const message = session.messages[at];
  if (!message || message.role !== "user")
    throw new UserError(`session ${session.id.slice(0, 8)} no longer holds that prompt where the checkpoint saw it (it was compacted or rewound since)`);
  const removed = session.messages.slice(at);
  const state = readCompactionState(session);
  const entry = { at: new Date().toISOString(), messages: removed, summary: `Taken back by a rewind to before the prompt "${record.prompt.slice(0, 80)}".` };
  session.messages = session.messages.slice(0, at);
  session.compaction = { ...state, spans: state.spans.filter((span) => span.to <= at), archive: [...(state.archive ?? []), entry] };
  const firstGone = record.runId === undefined ? -1 : session.exchanges.findIndex((exchange) => exchange.runId === record.runId);
  if (firstGone >= 0) session.exchanges = session.exchanges.slice(0, firstGone);
  return removed.length;
}

/** `--conversation` from the CLI: the session is loaded, cut and saved (refused while another process holds it). */
export function rewindSavedConversation(record: CheckpointRecord): number {
  const session = loadSession(record.sessionId);
  const writer = openSessionWriter(session);
  try {
    const removed = cutConversation(session, record);
    writer.save();
    return removed;
  } finally {
    writer.close();
  }
}
