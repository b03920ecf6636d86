/**
 * `--output-schema FILE`: the run's final answer must be JSON valid against a JSON Schema.
 * The model is told the schema at the end of its system prompt; the answer is parsed (a bare
 * JSON text, or the last fenced ```json block) and validated by Ajv (draft-07, or 2020-12 when
 * the schema's `$schema` says so). An invalid answer gets one repair turn whose prompt carries
 * the validation errors (lib/ui/headless-run.ts drives it, for `-p` and `shiro runs resume`).
 */
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { UsageError } from "../platform/errors.ts";
import { readOutputSchemaFile } from "./output-schema-file.ts";

export type SchemaCheck = { ok: true; value: unknown } | { ok: false; errors: string[] };

export interface OutputSchema {
  /** What the system prompt ends with: the schema and how to answer. */
  instructions: string;
  /** Parses and validates an answer. */
  check(answer: string): SchemaCheck;
  /** The prompt of the one repair turn. */
  repairPrompt(errors: readonly string[]): string;
  /** True for a prompt `repairPrompt` wrote: a resumed repair turn gets no second one. */
  isRepairPrompt(prompt: string): boolean;
}

const _REPAIR_OPENING = "Your answer does not match the required JSON Schema:";

/** Reads and compiles the schema file; a missing file, bad JSON or a schema Ajv refuses is a UsageError. */
export function loadOutputSchema(cwd: string, file: string): OutputSchema {
  const { schema, instructions } = readOutputSchemaFile(cwd, file);
  const modern = String((schema as { $schema?: unknown }).$schema ?? "").includes("2020-12");
  const ajv = modern ? new Ajv2020({ allErrors: true, strict: false }) : new Ajv({ allErrors: true, strict: false });
  let validate: ReturnType<typeof ajv.compile>;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new UsageError(`--output-schema ${file}: not a valid JSON Schema (${error instanceof Error ? error.message : String(error)})`);
  }
  return {
    instructions,
    check(answer) {
      const parsed = _parse(answer);
      if (!parsed.ok) return { ok: false, errors: [parsed.error] };
      if (validate(parsed.value)) return { ok: true, value: parsed.value };
      return { ok: false, errors: (validate.errors ?? []).map((issue) => `${issue.instancePath || "/"} ${issue.message ?? "is invalid"}`) };
    },
    repairPrompt: (errors) =>
      [_REPAIR_OPENING, ...errors.map((error) => `- ${error}`), "Reply with only the corrected JSON value, valid against the schema."].join("\n"),
    isRepairPrompt: (prompt) => prompt.startsWith(`${_REPAIR_OPENING}\n`),
  };
}

function _parse(answer: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const trimmed = answer.trim();
  if (!trimmed) return { ok: false, error: "the answer is empty, not JSON" };
  const fenced = [...trimmed.matchAll(/```(?:json)?\s*\n([\s\S]*?)\n```/g)].at(-1)?.[1];
  for (const candidate of [trimmed, fenced]) {
    if (candidate === undefined) continue;
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      // try the next form
    }
  }
  return { ok: false, error: "the answer is not JSON" };
}
