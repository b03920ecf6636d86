/**
 * `--output-format json`: the one object a headless run prints at the end, on one line of stdout.
 * Field names follow Claude Code's result object where they mean the same (docs/headless.md):
 *   result       the final answer (with --output-schema: the parsed JSON value)
 *   is_error     true unless the run completed (and its answer matched the schema)
 *   stop         the run's stop (completed, error, aborted, blocked, max-steps, max-cost)
 *   session_id, run_id (the last run's: a schema repair is a second run)
 *   num_steps    model steps of every run, duration_ms  wall time of the whole command
 *   usage        { input_tokens, output_tokens } or null when the provider reported none
 *   cost_usd     null when the model is unpriced
 *   checkpoint   the checkpoint id of the last run's `done`, only when it has one
 *   errors       only when something failed: the error, or the schema's validation errors
 */
import type { PrintedRun } from "./print.ts";

export interface RunResultObject {
  result: unknown;
  is_error: boolean;
  stop: string;
  session_id: string | null;
  run_id: string | null;
  num_steps: number;
  duration_ms: number;
  usage: { input_tokens: number; output_tokens: number } | null;
  cost_usd: number | null;
  checkpoint?: string;
  errors?: string[];
}

export interface RunResultInput {
  runs: readonly PrintedRun[];
  durationMs: number;
  /** With --output-schema: the parsed answer, or the errors of the last check. */
  schema?: { ok: true; value: unknown } | { ok: false; errors: string[] };
}

export function buildRunResult(input: RunResultInput): RunResultObject {
  const last = input.runs.at(-1);
  const dones = input.runs.flatMap((run) => (run.done ? [run.done] : []));
  const reported = dones.filter((done) => done.inputTokens !== undefined || done.outputTokens !== undefined);
  const priced = dones.filter((done) => done.costUsd !== undefined);
  const stop = last?.stop ?? "error";
  const schemaFailed = input.schema !== undefined && !input.schema.ok;
  const errors =
    stop === "completed"
      ? schemaFailed && !input.schema!.ok
        ? input.schema!.errors
        : undefined
      : [last?.error ?? last?.done?.reason ?? `the run stopped: ${stop}`];
  const checkpoint = (last?.done as { checkpoint?: unknown } | undefined)?.checkpoint;
  return {
    result: input.schema?.ok ? input.schema.value : (last?.answer ?? ""),
    is_error: stop !== "completed" || schemaFailed,
    stop,
    session_id: last?.done?.sessionId ?? null,
    run_id: last?.done?.runId ?? null,
    num_steps: dones.reduce((sum, done) => sum + done.steps, 0),
    duration_ms: Math.round(input.durationMs),
    usage:
      reported.length === 0
        ? null
        : {
            input_tokens: reported.reduce((sum, done) => sum + (done.inputTokens ?? 0), 0),
            output_tokens: reported.reduce((sum, done) => sum + (done.outputTokens ?? 0), 0),
          },
    cost_usd: priced.length === 0 ? null : priced.reduce((sum, done) => sum + done.costUsd!, 0),
    ...(typeof checkpoint === "string" ? { checkpoint } : {}),
    ...(errors ? { errors } : {}),
  };
}
