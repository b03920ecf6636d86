/**
 * `--output-schema FILE` read for the system prompt: the file parsed as a JSON object and the
 * "Answer format" section that carries it. No validator is loaded here, so a run's start-up pays
 * for Ajv only where answers are checked (output-schema.ts, which compiles the same object).
 * A missing file, bad JSON or a non-object is a UsageError naming the flag.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../platform/errors.ts";

export interface OutputSchemaFile {
  schema: object;
  /** What the system prompt ends with: the schema and how to answer. */
  instructions: string;
}

export function readOutputSchemaFile(cwd: string, file: string): OutputSchemaFile {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new UsageError(`--output-schema ${file}: no such file, or it cannot be read`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--output-schema ${file}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) throw new UsageError(`--output-schema ${file}: a JSON Schema is an object`);
  const instructions = [
    "# Answer format",
    "Your final answer must be one JSON value valid against this JSON Schema, and nothing else: no prose before or after it, no code fence.",
    "```json",
    JSON.stringify(schema, null, 2),
    "```",
  ].join("\n");
  return { schema, instructions };
}
