/**
 * Builds an episode from the run logs of one headless run or REPL session, with no model call:
 * every field comes from what shiro observed and logged (events/<runId>.jsonl, runs/<runId>.json)
 * and the prompts the user typed.
 *
 * Contract:
 * - What a call did comes from its tool's declaration, through `describe` (lib/tools/call-facts.ts
 *   builds it from the session's tools): nothing here knows a tool by name.
 * - No episode (undefined) unless the work did something: a tool that is not bookkeeping
 *   (remember, recall, forget, todo_write, recall_discarded declare so) ran, or a file changed.
 * - Files count only when their tool succeeded (a `tool-result`, not an error or a denial): read
 *   by tools that declare they read the files they name (read_file, read_many_files), changed by
 *   write tools (every path they declare: both ends of a move, every file of a patch). Paths
 *   are relative to the project root when inside it, absolute otherwise; each list keeps
 *   first-seen order, without repeats.
 * - Commands are calls of shell tools (bash) with the exit code their result reports (`exit: N`);
 *   null when the call failed without one.
 * - Caps: 8 prompts of 500 characters, 40 files read, 40 changed, 20 commands of 200 characters,
 *   an answer excerpt of 400 characters, 4 span summaries of 2,000 characters.
 */
import { statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { uuidv7 } from "../platform/ids.ts";
import { paths } from "../platform/paths.ts";
import type { Episode, CommandRun } from "./episodes.ts";
import { loadRun, readRunEvents, type LoggedEvent, type RunSnapshot } from "./runs.ts";
import { redactText } from "../secrets/redact.ts";

export interface EpisodeRunInput {
  runId: string;
  snapshot?: RunSnapshot;
  events: readonly LoggedEvent[];
  /** What the user asked in this run, whole (the snapshot keeps only its start). */
  prompt?: string;
}

/** What one call did, as its tool declares it (paths as the model spelled them). */
export interface CallFacts {
  reads: string[];
  changes: string[];
  /** The shell command it ran, for a shell tool. */
  command?: string;
  /** True for a call that only keeps the session's records: not work. */
  bookkeeping: boolean;
}

/** Reads a logged call by its tool's declaration; an unknown tool is work that touched nothing known. */
export type DescribeCall = (name: string, input: Record<string, unknown>) => CallFacts;

export interface BuildEpisodeInput {
  sessionId: string;
  describe: DescribeCall;
  /** The folder tool paths are relative to. */
  cwd: string;
  projectRoot: string;
  runs: readonly EpisodeRunInput[];
}

const _CAP = { prompts: 8, promptChars: 500, files: 40, commands: 20, commandChars: 200, answer: 400, spans: 4, spanChars: 2_000 };

export function buildEpisode(input: BuildEpisodeInput): Episode | undefined {
  const prompts: string[] = [];
  const filesRead: string[] = [];
  const filesChanged: string[] = [];
  const commands: CommandRun[] = [];
  const spans: string[] = [];
  let worked = false;
  let answer = "";
  let status = "completed";
  let steps = 0;
  let cost: number | undefined;
  let startedAt: string | undefined;
  let endedAt: string | undefined;
  const where = (path: unknown) => (typeof path === "string" && path ? projectPath(path, input.cwd, input.projectRoot) : undefined);

  for (const run of input.runs) {
    const prompt = run.prompt ?? run.snapshot?.prompt;
    if (prompt && prompts.length < _CAP.prompts) prompts.push(_cap(prompt.trim(), _CAP.promptChars));
    const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
    let runSteps: number | undefined;
    for (const event of run.events) {
      startedAt ??= event.at;
      endedAt = event.at;
      if (event.type === "tool-call") calls.set(event.id, { name: event.name, input: (event.input ?? {}) as Record<string, unknown> });
      else if (event.type === "message") answer = event.text;
      else if (event.type === "compacted" && event.summary && spans.length < _CAP.spans) spans.push(_cap(event.summary, _CAP.spanChars));
      else if (event.type === "done") {
        status = event.stop;
        runSteps = event.steps;
        if (event.costUsd !== undefined) cost = (cost ?? 0) + event.costUsd;
      } else if (event.type === "tool-result" || event.type === "tool-error") {
        const call = calls.get(event.id);
        if (!call) continue;
        const facts = input.describe(call.name, call.input);
        if (!facts.bookkeeping) worked = true;
        if (facts.command !== undefined && commands.length < _CAP.commands) {
          const exit = event.type === "tool-result" ? /^exit: (-?\d+)/m.exec(event.output)?.[1] : undefined;
          commands.push({ command: _cap(facts.command.trim(), _CAP.commandChars), exit: exit === undefined ? null : Number(exit) });
        }
        if (event.type !== "tool-result") continue;
        for (const path of facts.reads) _addPath(filesRead, where(path));
        for (const path of facts.changes) _addPath(filesChanged, where(path));
      }
    }
    steps += run.snapshot?.steps ?? runSteps ?? 0;
    if (run.snapshot?.status) status = run.snapshot.status;
    startedAt = _earliest(startedAt, run.snapshot?.startedAt);
  }
  if (!worked && filesChanged.length === 0) return undefined;
  const snapshotCost = input.runs.reduce<number | undefined>(
    (sum, run) => (run.snapshot?.costUsd === undefined ? sum : (sum ?? 0) + run.snapshot.costUsd),
    undefined,
  );
  const costUsd = snapshotCost ?? cost;
  const now = new Date().toISOString();
  return {
    id: uuidv7(),
    sessionId: input.sessionId,
    runIds: input.runs.map((run) => run.runId),
    startedAt: startedAt ?? now,
    endedAt: endedAt ?? now,
    prompts,
    filesRead,
    filesChanged,
    commands,
    outcome: { status, steps, runs: input.runs.length, ...(costUsd === undefined ? {} : { costUsd }) },
    answer: _cap(answer.trim(), _CAP.answer),
    spans,
  };
}

/** Reads the snapshot and event log of each run; `prompts` gives the whole question by run id where known. */
export function loadEpisodeRuns(runIds: readonly string[], prompts: ReadonlyMap<string, string> = new Map()): EpisodeRunInput[] {
  return runIds.map((runId) => {
    const snapshot = loadRun(runId);
    const prompt = prompts.get(runId);
    // Only a regular file is a run log: a device or fifo in its place (say /dev/full) never ends.
    const events = _isRegularFile(paths.events(runId)) ? readRunEvents(runId).events : [];
    return { runId, events, ...(snapshot ? { snapshot } : {}), ...(prompt ? { prompt } : {}) };
  });
}

function _isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A tool's path as the episode keeps it: relative to the project root inside it, else absolute. */
export function projectPath(path: string, cwd: string, projectRoot: string): string {
  const absolute = resolve(cwd, path);
  const inside = relative(projectRoot, absolute);
  if (!inside || inside.startsWith("..") || isAbsolute(inside)) return absolute;
  return inside.split(sep).join("/");
}

function _addPath(list: string[], path: string | undefined): void {
  if (path && list.length < _CAP.files && !list.includes(path)) list.push(path);
}

/** Redacted whole before the cut: a key cut short would no longer match its shape. */
function _cap(raw: string, max: number): string {
  const text = redactText(raw).text;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function _earliest(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return a < b ? a : b;
}
