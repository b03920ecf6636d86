/**
 * Request-body validation against OpenAI's published OpenAPI document, as vendored in
 * `openai-spec/request-schemas.json` (the schemas reachable from the two request types, without
 * annotations; `openai-spec/vendor.ts` refreshes it). The document is OpenAPI 3.1 with
 * OpenAPI-only keywords; `_toJsonSchema` turns the schemas reachable from the two request
 * types into plain JSON Schema 2020-12 that ajv compiles once per process.
 *
 * Translation rules: `$ref`s point into one `$defs` map; `nullable: true` admits `null`;
 * `oneOf` becomes `anyOf` (the spec's unions are discriminated, and overlapping branches such as
 * EasyInputMessage/InputMessage would otherwise reject valid bodies); `$recursiveRef` points
 * back at its own definition; annotations, `x-*`, `discriminator`, `example` and formats ajv
 * does not know are dropped.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export type SchemaName = "CreateChatCompletionRequest" | "CreateResponse" | "CreateEmbeddingRequest";

/** The schema error reported for a body: where (a dotted path, as OpenAI's `param`) and what. */
export interface SchemaIssue {
  param: string;
  message: string;
}

/** The vendored OpenAPI document, inside the repository. */
export const SPEC_URL = new URL("./openai-spec/request-schemas.json", import.meta.url);
/** The request schemas the fake validates, and the roots the vendored copy keeps. */
export const SCHEMA_NAMES: readonly SchemaName[] = ["CreateChatCompletionRequest", "CreateResponse", "CreateEmbeddingRequest"];
const KNOWN_FORMATS = new Set(["uri", "uri-reference", "email", "date-time", "date", "time", "uuid", "hostname", "ipv4", "ipv6", "regex"]);
/** JSON Schema keywords whose value maps names to subschemas, and those whose value is one subschema (`openai-spec/vendor.ts` walks the same ones). */
export const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
const SUBSCHEMA_LISTS = new Set(["allOf", "anyOf", "prefixItems"]);
export const SUBSCHEMA_SINGLE = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
]);
const VALUE_KEYWORDS = new Set([
  "type",
  "enum",
  "const",
  "required",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "format",
  "$ref",
]);

let _validators: Map<SchemaName, ValidateFunction> | undefined;

/** Compiles the validators (once per process). Throws when the spec file is missing. */
export function loadSchemaValidators(): Map<SchemaName, ValidateFunction> {
  if (_validators) return _validators;
  let raw: string;
  try {
    raw = readFileSync(fileURLToPath(SPEC_URL), "utf8");
  } catch (error) {
    throw new Error(`fake provider: cannot read the OpenAPI spec at ${fileURLToPath(SPEC_URL)} (${(error as Error).message})`);
  }
  const components = (JSON.parse(raw) as { components: { schemas: Record<string, unknown> } }).components.schemas;
  const defs: Record<string, unknown> = {};
  const pending: string[] = [...SCHEMA_NAMES];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in defs) continue;
    if (!(name in components)) throw new Error(`fake provider: the OpenAPI spec has no schema ${name}`);
    defs[name] = _toJsonSchema(components[name], name, (ref) => pending.push(ref));
  }
  const ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: "openai", $defs: defs });
  _validators = new Map(SCHEMA_NAMES.map((name) => [name, ajv.compile({ $ref: `openai#/$defs/${name}` })]));
  return _validators;
}

/**
 * Validates `body` against the named request schema; undefined when it conforms. Ajv reports every
 * failed branch of a union; like OpenAI's discriminator, the report keeps to the branches whose
 * `type`/`role` accept the body: the deepest error there, else the discriminator mismatch with the
 * allowed values of every branch.
 */
export function checkSchema(name: SchemaName, body: unknown): SchemaIssue | undefined {
  const validate = loadSchemaValidators().get(name)!;
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? []).filter((error) => error.keyword !== "anyOf" && error.keyword !== "oneOf");
  const mismatches = errors.filter(_isDiscriminatorMismatch);
  const others = errors.filter((error) => !_isDiscriminatorMismatch(error) && !_isInRejectedBranch(error, body));
  const chosen = _deepest(others.length > 0 ? others : mismatches);
  if (!chosen) return { param: "", message: "body does not match the schema" };
  const param = _toParam(chosen.instancePath);
  let detail = chosen.message ?? "is invalid";
  if (_isDiscriminatorMismatch(chosen)) {
    const allowed = mismatches.filter((error) => error.instancePath === chosen.instancePath).flatMap(_allowedValues);
    detail = `must be one of ${[...new Set(allowed.map((value) => JSON.stringify(value)))].join(", ")}`;
  }
  return { param, message: `${param || "body"} ${detail}` };
}

function _isDiscriminatorMismatch(error: ErrorObject): boolean {
  return (error.keyword === "enum" || error.keyword === "const") && /\/(type|role)$/.test(error.instancePath);
}

function _allowedValues(error: ErrorObject): unknown[] {
  const params = error.params as { allowedValues?: unknown[]; allowedValue?: unknown };
  return params.allowedValues ?? [params.allowedValue];
}

/** True when the error comes from a union branch whose own `type`/`role` rejects the object. */
function _isInRejectedBranch(error: ErrorObject, body: unknown): boolean {
  const properties = (error.parentSchema as { properties?: Record<string, { enum?: unknown[]; const?: unknown }> } | undefined)?.properties;
  const value = _valueAt(body, error.instancePath);
  if (!properties || typeof value !== "object" || value === null) return false;
  return ["type", "role"].some((key) => {
    const allowed = properties[key]?.enum ?? (properties[key] && "const" in properties[key] ? [properties[key].const] : undefined);
    return allowed !== undefined && key in value && !allowed.includes((value as Record<string, unknown>)[key]);
  });
}

function _valueAt(body: unknown, instancePath: string): unknown {
  return instancePath
    .split("/")
    .slice(1)
    .reduce<unknown>((node, segment) => (typeof node === "object" && node !== null ? (node as Record<string, unknown>)[_unescape(segment)] : undefined), body);
}

function _unescape(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function _deepest(errors: ErrorObject[]): ErrorObject | undefined {
  return errors.reduce<ErrorObject | undefined>((best, error) => (!best || _depth(error) > _depth(best) ? error : best), undefined);
}

function _depth(error: ErrorObject): number {
  return error.instancePath.split("/").length;
}

function _toParam(instancePath: string): string {
  const segments = instancePath.split("/").slice(1).map(_unescape);
  return segments.map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : `${index > 0 ? "." : ""}${segment}`)).join("");
}

function _toJsonSchema(node: unknown, self: string, onRef: (name: string) => void): unknown {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let union: unknown[] | undefined;
  for (const [key, value] of Object.entries(source)) {
    if (key === "$ref" && typeof value === "string") {
      const name = value.replace(/^#\/components\/schemas\//, "");
      onRef(name);
      out.$ref = `#/$defs/${name}`;
    } else if (key === "$recursiveRef") {
      out.$ref = `#/$defs/${self}`;
    } else if (key === "format") {
      if (typeof value === "string" && KNOWN_FORMATS.has(value)) out.format = value;
    } else if (SUBSCHEMA_MAPS.has(key) && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, _toJsonSchema(sub, self, onRef)]));
    } else if (key === "oneOf" && Array.isArray(value)) {
      union = value.map((sub) => _toJsonSchema(sub, self, onRef));
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => _toJsonSchema(sub, self, onRef));
    } else if (SUBSCHEMA_SINGLE.has(key)) {
      out[key] = _toJsonSchema(value, self, onRef);
    } else if (VALUE_KEYWORDS.has(key)) {
      out[key] = value;
    }
  }
  if (union && out.anyOf) out.allOf = [...((out.allOf as unknown[] | undefined) ?? []), { anyOf: union }];
  else if (union) out.anyOf = union;
  return source.nullable === true ? _admitNull(out) : out;
}

function _admitNull(schema: Record<string, unknown>): Record<string, unknown> {
  if (typeof schema.type === "string" && !schema.$ref && !schema.anyOf && !schema.allOf) {
    const enumValues = Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {};
    return { ...schema, type: [schema.type, "null"], ...enumValues };
  }
  return { anyOf: [schema, { type: "null" }] };
}
