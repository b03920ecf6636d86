/** `shiro runs list|show|events|search`: reading the run log (runs.ts holds the commands that act on runs). */
import { defineCommand } from "citty";
import { UsageError } from "../platform/errors.ts";
import { writeOut, writeErr } from "./output.ts";
import { showControls } from "./terminal-text.ts";

function _age(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 90) return `${seconds}s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 129_600) return `${Math.round(seconds / 3600)}h ago`;
  return `${Math.round(seconds / 86_400)}d ago`;
}

/** `--limit` as given (a leading whole number, as parseInt reads it), else `fallback`. */
function _parseLimit(given: string | undefined, fallback: number): number {
  const limit = given ? Number.parseInt(given, 10) : fallback;
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError("--limit must be a positive whole number");
  return limit;
}

export const list = defineCommand({
  meta: { name: "list", description: "the newest runs (default 20)" },
  args: {
    json: { type: "boolean", description: "the snapshots as a JSON array" },
    limit: { type: "string", description: "how many runs to show" },
  },
  async run({ args }) {
    const { listRuns, effectiveStatus } = await import("../store/runs.ts");
    const limit = _parseLimit(args.limit, 20);
    const { runs, skipped } = listRuns(limit);
    for (const skip of skipped) writeErr(`shiro: skipped runs/${skip.file}: ${skip.reason}\n`);
    if (args.json) {
      writeOut(
        `${JSON.stringify(
          runs.map((run) => ({ ...run, status: effectiveStatus(run) })),
          null,
          2,
        )}\n`,
      );
      return;
    }
    if (runs.length === 0) {
      writeOut("no runs yet\n");
      return;
    }
    const { shortRunIds } = await import("../store/short-ids.ts");
    const ids = shortRunIds(runs.map((run) => run.id));
    const width = Math.max(...ids.map((id) => id.length));
    for (const [i, run] of runs.entries()) {
      const tokens = run.usage ? `${run.usage.inputTokens}/${run.usage.outputTokens} tok` : "";
      writeOut(
        `${ids[i]!.padEnd(width)}  ${effectiveStatus(run).padEnd(11)} ${_age(run.startedAt).padEnd(8)} ${String(run.steps).padStart(3)} steps  ${tokens.padEnd(16)} ${showControls(run.prompt.replace(/\s+/g, " ").slice(0, 60))}\n`,
      );
    }
  },
});

export const show = defineCommand({
  meta: { name: "show", description: "one run's snapshot" },
  args: {
    id: { type: "positional", description: "run id or unique prefix" },
    json: { type: "boolean", description: "the snapshot as JSON" },
  },
  async run({ args }) {
    const { findRun, effectiveStatus } = await import("../store/runs.ts");
    const run = findRun(String(args.id));
    const status = effectiveStatus(run);
    if (args.json) {
      writeOut(`${JSON.stringify({ ...run, status }, null, 2)}\n`);
      return;
    }
    const rows: [string, string][] = [
      ["run", run.id],
      ["status", status],
      ["session", run.sessionId],
      ["cwd", run.cwd],
      ["model", `${run.provider}/${run.model} (${run.protocol})`],
      ["agent", run.agent],
      ["started", run.startedAt],
      ["ended", run.endedAt ?? "-"],
      ["steps", String(run.steps)],
      ["tokens", run.usage ? `${run.usage.inputTokens} in / ${run.usage.outputTokens} out` : "-"],
      ["cost", run.costUsd !== undefined ? `$${run.costUsd.toFixed(4)}` : "-"],
      ["prompt", run.prompt],
    ];
    if (run.error) rows.push(["error", run.error]);
    if (run.checkpoint) rows.push(["rewind", `checkpoint ${run.checkpoint}: shiro rewind ${run.checkpoint.slice(0, 13)} --yes takes its changes back`]);
    if (run.suspended) {
      const { shortApprovalId, shortRunId } = await import("../store/short-ids.ts");
      const approval = shortApprovalId(run.suspended.approvalId);
      rows.push(["waiting", `approval ${approval}: shiro approve|deny ${approval}, then shiro runs resume ${shortRunId(run.id)}`]);
    }
    for (const [key, value] of rows) writeOut(`${key.padEnd(9)}${showControls(value)}\n`);
  },
});

export const events = defineCommand({
  meta: { name: "events", description: "a run's event log" },
  args: {
    id: { type: "positional", description: "run id or unique prefix" },
    json: { type: "boolean", description: "the stored lines as they are" },
    type: { type: "string", description: "only events of this type (e.g. tool-call)" },
  },
  async run({ args }) {
    const { findRun, readRunEvents } = await import("../store/runs.ts");
    const run = findRun(String(args.id));
    const { events: logged, skipped } = readRunEvents(run.id);
    const wanted = args.type ? logged.filter((event) => event.type === args.type) : logged;
    if (args.json) {
      for (const event of wanted) writeOut(`${JSON.stringify(event)}\n`);
    } else {
      const { createReplayPrinter } = await import("./print.ts");
      const { shortRunId } = await import("../store/short-ids.ts");
      const printer = createReplayPrinter();
      for (const event of wanted) {
        if (event.type === "run-start") writeOut(showControls(`[run] ${shortRunId(event.runId)} ${event.provider}/${event.model} in ${event.cwd}\n`));
        else if (event.type === "tool-result") writeOut(`${showControls(`[result] ${event.name}: ${event.output.split("\n")[0]!.slice(0, 120)}`)}\n`);
        else printer.print(event);
      }
    }
    if (skipped > 0) writeErr(`shiro: ${skipped} unreadable line(s) skipped (a run that crashed mid-write)\n`);
  },
});

export const search = defineCommand({
  meta: { name: "search", description: "find past runs by what was asked, said, run or returned (every word must appear)" },
  args: {
    query: { type: "positional", description: "words to look for (quote several)" },
    json: { type: "boolean", description: "the hits as a JSON array" },
    here: { type: "boolean", description: "only runs started in this folder" },
    limit: { type: "string", description: "at most this many hits (default 50)" },
  },
  async run({ args }) {
    const { searchRuns } = await import("../find/run-search.ts");
    const limit = _parseLimit(args.limit, 50);
    const query = String(args.query);
    const hits = searchRuns(query, { limit, ...(args.here ? { cwd: process.cwd() } : {}), onNotice: (text) => writeErr(`shiro: ${text}\n`) });
    if (args.json) {
      writeOut(`${JSON.stringify(hits, null, 2)}\n`);
      return;
    }
    if (hits.length === 0) {
      writeOut(`no run matches "${showControls(query)}"\n`);
      return;
    }
    const width = Math.max(...hits.map((hit) => hit.shortId.length));
    for (const hit of hits) {
      const label = hit.name ? `${hit.kind} ${hit.name}` : hit.kind;
      writeOut(`${showControls(`${hit.shortId.padEnd(width)}  ${hit.at.slice(0, 16).replace("T", " ")}  ${label.padEnd(22)} ${hit.excerpt}`)}\n`);
    }
  },
});
