/**
 * One headless command's turns: the prompt (attachments resolved, lib/ui/headless-attach.ts),
 * then, with `--output-schema`, at most one repair turn when the answer does not validate. Prints
 * as the output format asks (text, stream-json, or nothing until the one json object), writes
 * `--output-last-message`, and returns the stop the exit code is made from; a schema still
 * unmet after the repair turn is reported as `schema-failed` (exit 1, the errors on stderr).
 * `shiro runs resume` checks a resumed run's answer with the same two functions below.
 */
import { writeFileSync } from "node:fs";
import type { Agent } from "../agent/agent.ts";
import type { OutputSchema, SchemaCheck } from "../agent/output-schema.ts";
import type { StopKind } from "../events.ts";
import { acceptsImages } from "../providers/windows.ts";
import { attachHeadless } from "./headless-attach.ts";
import { describeNotices } from "./notices.ts";
import { writeErr, writeOut } from "./output.ts";
import { showControls } from "./terminal-text.ts";
import { printRun, type PrintedRun } from "./print.ts";
import { buildRunResult } from "./run-result.ts";

export type OutputFormat = "text" | "json" | "stream-json";

export interface HeadlessRunOptions {
  format: OutputFormat;
  /** Absolute path for `--output-last-message`. */
  lastMessageFile?: string;
  schema?: OutputSchema;
  /** `-i` images, workspace paths. */
  images: readonly string[];
  root: string;
  startedAt: number;
}

export type HeadlessStop = StopKind | "schema-failed" | undefined;

export async function runHeadlessTurns(agent: Agent, prompt: string, signal: AbortSignal, options: HeadlessRunOptions): Promise<HeadlessStop> {
  const print = { json: options.format === "stream-json", quiet: options.format === "json" };
  const attached = await attachHeadless(prompt, {
    root: options.root,
    images: options.images,
    judge: (path) => agent.judgeAttachment(path),
    imagesRefusedBy: acceptsImages(agent.model) ? undefined : agent.model,
    note: (line) => writeErr(`${line}\n`),
  });
  const runs: PrintedRun[] = [];
  const notices = describeNotices(agent.startupNotices());
  runs.push(await printRun(agent.turn(attached.prompt, signal, { notices, images: attached.images }), print));
  const check = await checkSchemaAnswer(agent, runs, signal, { schema: options.schema, print, announce: options.format === "text" });
  const last = runs.at(-1)!;
  if (options.lastMessageFile && last.stop === "completed")
    writeFileSync(options.lastMessageFile, last.answer.endsWith("\n") ? last.answer : `${last.answer}\n`);
  if (options.format === "json") {
    writeOut(`${JSON.stringify(buildRunResult({ runs, durationMs: Date.now() - options.startedAt, schema: check }))}\n`);
  }
  return schemaStop(check) ?? last.stop;
}

/**
 * With `schema`, checks the answer of the last of `runs` when it completed; an invalid one gets
 * one repair turn (its run appended to `runs`), whose answer is checked again. `announce` says
 * so on stderr first (text output); `repaired` (the run checked was the repair turn) gets none.
 * Undefined without a schema or a completed answer to check.
 * `-p` and `shiro runs resume` share it.
 */
export async function checkSchemaAnswer(
  agent: Agent,
  runs: PrintedRun[],
  signal: AbortSignal,
  options: { schema?: OutputSchema; print: { json: boolean; quiet?: boolean }; announce: boolean; repaired?: boolean },
): Promise<SchemaCheck | undefined> {
  const first = runs.at(-1)!;
  if (!options.schema || first.stop !== "completed") return undefined;
  const check = options.schema.check(first.answer);
  if (check.ok || options.repaired) return check;
  if (options.announce) writeErr(`[schema] the answer does not match --output-schema; one repair turn: ${showControls(check.errors.join("; "))}\n`);
  const repair = await printRun(agent.turn(options.schema.repairPrompt(check.errors), signal), options.print);
  runs.push(repair);
  return repair.stop === "completed" ? options.schema.check(repair.answer) : undefined;
}

/** `schema-failed` with its one line on stderr when the checked answer is still invalid after the repair turn. */
export function schemaStop(check: SchemaCheck | undefined): "schema-failed" | undefined {
  if (!check || check.ok) return undefined;
  writeErr(`shiro: the answer does not match --output-schema after one repair turn: ${showControls(check.errors.join("; "))}\n`);
  return "schema-failed";
}
