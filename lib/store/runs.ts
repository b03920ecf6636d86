/**
 * The durable run log.
 *
 * Files:
 *   runs/<runId>.json     snapshot, rewritten atomically at start, on suspension and at the end:
 *                         {version:1, id, sessionId, cwd, provider, model, protocol, agent, prompt,
 *                          status, pid, startedAt, endedAt?, steps, usage?, costUsd?, stop?, error?,
 *                          detached?, suspended?, checkpoint?, options}
 *   events/<runId>.jsonl  every non-transient AgentEvent, one whole line each, in order, with
 *                         `seq` and `at` (ISO time) added. Transient deltas (text, reasoning,
 *                         tool-output) are not stored: `message` and `tool-result` carry the totals.
 *   requests/<runId>.cancel  a cancel request from another process.
 *
 * A crash mid-run leaves an event log that parses up to its last whole line and a snapshot
 * still marked `running`; readers report such a run as `interrupted` once its pid is gone.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import * as v from "valibot";
import { UserError } from "../platform/errors.ts";
import { paths } from "../platform/paths.ts";
import { messageSchemas } from "../messages.ts";
import { SAVED_FLAGS, type RunOptions } from "../config/flags.ts";
import { TRANSIENT_EVENTS, type AgentEvent } from "../events.ts";
import { appendJsonLine, readJson, readJsonLines, writeJsonAtomic, writeTextAtomic } from "../state-file/json-file.ts";
import { isProcessAlive } from "../state-file/file-lock.ts";
import { noteRecentId, shortRunId } from "./short-ids.ts";

export const RUN_STATUSES = ["running", "completed", "error", "aborted", "cancelled", "blocked", "max-steps", "max-cost", "interrupted"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run snapshot's schemas, built at first use. */
function _build() {
  /** What it takes to re-create the run's session in another process (`shiro runs resume`): the saved flags. */
  const options = v.object(
    Object.fromEntries(
      SAVED_FLAGS.map((flag) => [
        flag.option!,
        flag.kind === "boolean" ? v.optional(v.boolean()) : flag.kind === "list" ? v.optional(v.array(v.string())) : v.optional(v.string()),
      ]),
    ),
  ) as v.GenericSchema<unknown, RunOptions>;

  /** Where a blocked turn stopped: the assistant message whose calls are being answered. */
  const suspension = v.object({
    /** Index in `messages` of the assistant message holding the calls. */
    assistantIndex: v.number(),
    /** Results of the calls answered before the block, in call order. */
    results: v.array(messageSchemas().toolResult),
    /** The call waiting for a decision. */
    callId: v.string(),
    approvalId: v.string(),
    /** Steps already taken in the turn. */
    steps: v.number(),
  });

  const snapshot = v.object({
    version: v.literal(1),
    id: v.string(),
    sessionId: v.string(),
    cwd: v.string(),
    provider: v.string(),
    model: v.string(),
    protocol: v.string(),
    agent: v.string(),
    prompt: v.string(),
    status: v.picklist(RUN_STATUSES),
    pid: v.number(),
    startedAt: v.string(),
    endedAt: v.optional(v.string()),
    steps: v.number(),
    usage: v.optional(v.object({ inputTokens: v.number(), outputTokens: v.number() })),
    costUsd: v.optional(v.number()),
    stop: v.optional(v.string()),
    error: v.optional(v.string()),
    detached: v.optional(v.boolean()),
    suspended: v.optional(suspension),
    /** The newest checkpoint this run left (`shiro rewind <id>`); absent while it changed nothing. */
    checkpoint: v.optional(v.string()),
    options,
  });
  return { options, suspension, snapshot };
}
type _Schemas = ReturnType<typeof _build>;
let _schemas: _Schemas | undefined;
export const runSchemas = (): _Schemas => (_schemas ??= _build());
export type Suspension = v.InferOutput<_Schemas["suspension"]>;
export type RunSnapshot = v.InferOutput<_Schemas["snapshot"]>;

export type LoggedEvent = AgentEvent & { seq: number; at: string };

export interface RunLog {
  readonly id: string;
  snapshot: RunSnapshot;
  /** Appends the event unless it is transient. */
  append(event: AgentEvent): void;
  /** Rewrites the snapshot with the given changes. */
  update(changes: Partial<RunSnapshot>): void;
}

export function openRunLog(snapshot: RunSnapshot, options: { fresh: boolean }): RunLog {
  let seq = options.fresh ? 0 : readJsonLines(paths.events(snapshot.id)).values.length;
  const log: RunLog = {
    id: snapshot.id,
    snapshot,
    append(event) {
      if (TRANSIENT_EVENTS.has(event.type)) return;
      seq += 1;
      appendJsonLine(paths.events(snapshot.id), { seq, at: new Date().toISOString(), ...event });
    },
    update(changes) {
      log.snapshot = { ...log.snapshot, ...changes };
      writeJsonAtomic(paths.run(snapshot.id), log.snapshot);
    },
  };
  if (options.fresh) noteRecentId(snapshot.id);
  // A fresh run's first snapshot is not fsynced: the session's durable save with the prompt comes
  // before the first request, and the run's end replaces this snapshot durably. Until then a power
  // loss may leave it empty: `shiro runs` names it as skipped, and the event log is untouched.
  writeJsonAtomic(paths.run(snapshot.id), snapshot, { durable: !options.fresh });
  return log;
}

/** The status a reader should show: a `running` run whose process is gone was interrupted. */
export function effectiveStatus(snapshot: RunSnapshot): RunStatus {
  if (snapshot.status === "running" && snapshot.pid !== process.pid && !isProcessAlive(snapshot.pid)) return "interrupted";
  return snapshot.status;
}

export function loadRun(runId: string): RunSnapshot | undefined {
  const read = readJson(paths.run(runId), { schema: runSchemas().snapshot });
  return read.status === "ok" ? read.value : undefined;
}

export interface RunListing {
  runs: RunSnapshot[];
  /** Snapshot files that could not be read, with the reason. */
  skipped: { file: string; reason: string }[];
}

/** Newest first (run ids are UUIDv7, so names sort by start time). */
export function listRuns(limit = 20): RunListing {
  let names: string[];
  try {
    names = readdirSync(paths.runsDir()).filter((name) => name.endsWith(".json"));
  } catch {
    return { runs: [], skipped: [] };
  }
  names.sort().reverse();
  const runs: RunSnapshot[] = [];
  const skipped: { file: string; reason: string }[] = [];
  for (const name of names) {
    if (runs.length >= limit) break;
    const read = readJson(`${paths.runsDir()}/${name}`, { schema: runSchemas().snapshot });
    if (read.status === "ok") runs.push(read.value);
    else if (read.status === "corrupt") skipped.push({ file: name, reason: read.reason });
  }
  return { runs, skipped };
}

/** Finds a run by full id or unique prefix. */
export function findRun(idOrPrefix: string): RunSnapshot {
  const exact = loadRun(idOrPrefix);
  if (exact) return exact;
  let names: string[] = [];
  try {
    names = readdirSync(paths.runsDir()).filter((name) => name.endsWith(".json") && name.startsWith(idOrPrefix));
  } catch {
    // no runs folder yet
  }
  if (names.length === 0 || idOrPrefix.length === 0) throw new UserError(`no run matching "${idOrPrefix}"`);
  if (names.length > 1) throw new UserError(`"${idOrPrefix}" matches ${names.length} runs; give more characters`);
  const run = loadRun(names[0]!.slice(0, -".json".length));
  if (!run) throw new UserError(`run ${shortRunId(names[0]!.slice(0, -".json".length))} has an unreadable snapshot`);
  return run;
}

export function readRunEvents(runId: string): { events: LoggedEvent[]; skipped: number } {
  const read = readJsonLines<LoggedEvent>(paths.events(runId));
  return { events: read.values, skipped: read.skipped.length };
}

export function requestCancel(runId: string): void {
  writeTextAtomic(paths.cancelRequest(runId), `${process.pid}\n`);
}

export function cancelRequested(runId: string): boolean {
  return existsSync(paths.cancelRequest(runId));
}

export function clearCancelRequest(runId: string): void {
  rmSync(paths.cancelRequest(runId), { force: true });
}

/**
 * Gives up a run that is waiting for an approval, from any process: its log ends with a notice
 * and a cancelled `done`, and its snapshot says `cancelled` and no longer holds the suspension.
 */
export function cancelBlockedRun(run: RunSnapshot): void {
  const log = openRunLog({ ...run, status: "cancelled", endedAt: new Date().toISOString(), suspended: undefined }, { fresh: false });
  log.append({ type: "notice", text: "cancelled while waiting for an approval" });
  log.append({ type: "done", runId: run.id, sessionId: run.sessionId, stop: "aborted", steps: run.steps, cancelled: true });
}
