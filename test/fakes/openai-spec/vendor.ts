/**
 * `bun run vendor:openai-spec <openai-openapi.json> [output]`: refreshes the fake provider's copy of the
 * OpenAI request schemas, `test/fakes/openai-spec/request-schemas.json`, from OpenAI's full
 * OpenAPI document (MIT; its licence text is `LICENSE` beside this file).
 *
 * The copy is itself an OpenAPI 3.1 document: `info` (title, version, licence of the source),
 * `x-vendored` (the source file's name and sha256, the root schemas, the refresh command) and
 * `components.schemas`, which holds every schema reachable through `$ref` from the roots the
 * fake validates (`CreateChatCompletionRequest`, `CreateResponse`, `CreateEmbeddingRequest`), sorted by name, one per line.
 * Annotations that never change whether a body is valid (description, title, example(s), default,
 * deprecated, externalDocs, `x-*`) are removed at schema positions only, so a property named
 * `description` stays. The file is replaced atomically (temp file, rename); bad input changes
 * nothing and prints one line. `output` (default: the vendored file) lets a test write elsewhere.
 */
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { SCHEMA_NAMES, SPEC_URL, SUBSCHEMA_MAPS, SUBSCHEMA_SINGLE } from "../provider-schema.ts";

export const VENDOR_COMMAND = "bun run vendor:openai-spec <path-to-openai-openapi.json>";

const ANNOTATIONS = new Set(["description", "title", "example", "examples", "default", "deprecated", "externalDocs"]);
const SUBSCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const REF_PREFIX = "#/components/schemas/";

/** What `pruneOpenApiSpec` keeps of a full document. */
export interface PrunedSpecResult {
  info: { title: string; version: string; license: unknown };
  schemas: Record<string, unknown>;
}

/**
 * Keeps the schemas reachable from `roots` and strips their annotations. Throws an Error naming
 * what is missing when the document has no `components.schemas`, no `info.version`, a root or a
 * `$ref` target it lacks, or a `$ref` outside `#/components/schemas/`.
 */
export function pruneOpenApiSpec(doc: unknown, roots: readonly string[]): PrunedSpecResult {
  const source = doc as { info?: { title?: unknown; version?: unknown; license?: unknown }; components?: { schemas?: unknown } };
  const all = source?.components?.schemas;
  if (typeof all !== "object" || all === null) throw new Error("the document has no components.schemas; is it OpenAI's OpenAPI document?");
  if (typeof source.info?.version !== "string") throw new Error("the document has no info.version; is it OpenAI's OpenAPI document?");
  const components = all as Record<string, unknown>;
  const schemas: Record<string, unknown> = {};
  const pending = roots.map((name) => ({ name, from: "the roots" }));
  while (pending.length > 0) {
    const { name, from } = pending.pop()!;
    if (Object.hasOwn(schemas, name)) continue;
    if (!Object.hasOwn(components, name)) throw new Error(`the document has no schema ${name} (referenced from ${from})`);
    schemas[name] = _stripAnnotations(components[name], (ref) => {
      if (!ref.startsWith(REF_PREFIX)) throw new Error(`${name} has a $ref outside ${REF_PREFIX}: ${ref}`);
      pending.push({ name: ref.slice(REF_PREFIX.length), from: name });
    });
  }
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((name) => [name, schemas[name]]),
  );
  const title = typeof source.info.title === "string" ? source.info.title : "OpenAI API";
  return { info: { title, version: source.info.version, license: source.info.license }, schemas: sorted };
}

/** The vendored file's text: the document shell pretty-printed, each schema on one line. */
export function renderVendoredSpec(pruned: PrunedSpecResult, sourceName: string, sourceSha256: string): string {
  const head = {
    openapi: "3.1.0",
    info: pruned.info,
    "x-vendored": { source: sourceName, sha256: sourceSha256, roots: SCHEMA_NAMES, refresh: VENDOR_COMMAND },
  };
  const headText = JSON.stringify(head, null, 2).slice(0, -2);
  const lines = Object.entries(pruned.schemas).map(([name, schema]) => `      ${JSON.stringify(name)}: ${JSON.stringify(schema)}`);
  return `${headText},\n  "components": {\n    "schemas": {\n${lines.join(",\n")}\n    }\n  }\n}\n`;
}

function _stripAnnotations(node: unknown, onRef: (ref: string) => void): unknown {
  if (Array.isArray(node)) return node;
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (ANNOTATIONS.has(key) || key.startsWith("x-")) continue;
    if (key === "$ref" && typeof value === "string") onRef(value);
    if (SUBSCHEMA_MAPS.has(key) && typeof value === "object" && value !== null && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, _stripAnnotations(sub, onRef)]));
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => _stripAnnotations(sub, onRef));
    } else if (SUBSCHEMA_SINGLE.has(key)) {
      out[key] = _stripAnnotations(value, onRef);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function _main(args: string[]): number {
  if (args.length < 1 || args.length > 2 || args.some((arg) => arg.startsWith("-"))) {
    process.stderr.write(`usage: ${VENDOR_COMMAND} [output]\n`);
    return 2;
  }
  const input = args[0]!;
  const target = args[1] ?? fileURLToPath(SPEC_URL);
  try {
    const raw = readFileSync(input);
    let doc: unknown;
    try {
      doc = JSON.parse(raw.toString("utf8"));
    } catch (error) {
      throw new Error(`${input} is not JSON (${(error as Error).message})`);
    }
    const pruned = pruneOpenApiSpec(doc, SCHEMA_NAMES);
    const licence = pruned.info.license as { identifier?: unknown; name?: unknown } | undefined;
    if (licence?.identifier !== "MIT" && licence?.name !== "MIT") {
      throw new Error(`the document's licence is ${JSON.stringify(licence)}, not MIT; review test/fakes/openai-spec/LICENSE before vendoring`);
    }
    const sha256 = createHash("sha256").update(raw).digest("hex");
    const text = renderVendoredSpec(pruned, basename(input), sha256);
    writeFileSync(`${target}.tmp`, text);
    renameSync(`${target}.tmp`, target);
    process.stdout.write(
      `${target}: OpenAI API ${pruned.info.version}, ${Object.keys(pruned.schemas).length} schemas, ${Buffer.byteLength(text).toLocaleString("en-US")} bytes\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`vendor:openai-spec: ${(error as Error).message}\n`);
    return 1;
  }
}

if (import.meta.main) process.exit(_main(process.argv.slice(2)));
