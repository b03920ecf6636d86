/**
 * The vendored OpenAI request schemas (test/fakes/openai-spec/): the prune keeps exactly what is
 * reachable and strips annotations only at schema positions; the vendored file is exactly what
 * the refresh script writes, closed under `$ref`, with its MIT licence beside it; the script's
 * bad input changes nothing and prints one line; and no source file reaches outside the repository.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SCHEMA_NAMES, SPEC_URL } from "../fakes/provider-schema.ts";
import { pruneOpenApiSpec, renderVendoredSpec, VENDOR_COMMAND } from "../fakes/openai-spec/vendor.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const SCRIPT = join(ROOT, "test", "fakes", "openai-spec", "vendor.ts");
const VENDORED_PATH = fileURLToPath(SPEC_URL);
const VENDORED_TEXT = readFileSync(VENDORED_PATH, "utf8");
const VENDORED = JSON.parse(VENDORED_TEXT) as {
  info: { title: string; version: string; license: unknown };
  "x-vendored": { source: string; sha256: string; roots: string[]; refresh: string };
  components: { schemas: Record<string, unknown> };
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function doc(schemas: Record<string, unknown>): unknown {
  return { openapi: "3.1.0", info: { title: "T", version: "9.9.9", license: { name: "MIT", identifier: "MIT" } }, components: { schemas } };
}

describe("pruneOpenApiSpec", () => {
  test("keeps the schemas reachable through every subschema position, sorted, and nothing else", () => {
    const schemas = {
      Root: { type: "object", properties: { a: ref("A"), list: { type: "array", items: ref("B") } }, additionalProperties: ref("C") },
      A: { anyOf: [ref("D"), { type: "null" }] },
      B: { oneOf: [ref("E")], discriminator: { propertyName: "type" } },
      C: { allOf: [ref("F")], not: { type: "number" } },
      D: { type: "string", nullable: true },
      E: { $recursiveAnchor: true, properties: { children: { items: { $recursiveRef: "#" } } } },
      F: { type: "string", enum: ["x"] },
      Unused: { type: "string" },
      AlsoUnused: { properties: { x: ref("Unused") } },
    };
    const pruned = pruneOpenApiSpec(doc(schemas), ["Root"]);
    expect(pruned).toEqual({
      info: { title: "T", version: "9.9.9", license: { name: "MIT", identifier: "MIT" } },
      schemas: { A: schemas.A, B: schemas.B, C: schemas.C, D: schemas.D, E: schemas.E, F: schemas.F, Root: schemas.Root },
    });
    expect(Object.keys(pruned.schemas)).toEqual(["A", "B", "C", "D", "E", "F", "Root"]);
  });

  test("strips annotations at schema positions, never a property, enum value or required name spelled like one", () => {
    const annotated = {
      description: "d",
      title: "t",
      example: 1,
      examples: [1],
      default: "x",
      deprecated: true,
      externalDocs: { url: "u" },
      "x-oaiMeta": {},
      "x-stainless-const": true,
      type: "object",
      required: ["description", "title", "default"],
      properties: {
        description: { type: "string", description: "the item's description", maxLength: 5 },
        title: { type: "string", title: "Title", "x-oaiTypeLabel": "string" },
        example: { enum: ["description", "title"], default: "title" },
        default: { items: { type: "string", example: "e" }, examples: [["e"]] },
        "x-custom": { anyOf: [{ type: "integer", description: "n" }] },
      },
    };
    expect(pruneOpenApiSpec(doc({ Root: annotated }), ["Root"]).schemas).toEqual({
      Root: {
        type: "object",
        required: ["description", "title", "default"],
        properties: {
          description: { type: "string", maxLength: 5 },
          title: { type: "string" },
          example: { enum: ["description", "title"] },
          default: { items: { type: "string" } },
          "x-custom": { anyOf: [{ type: "integer" }] },
        },
      },
    });
  });

  test.each([
    ["no components", { info: { version: "1" } }, "the document has no components.schemas; is it OpenAI's OpenAPI document?"],
    [
      "components not an object",
      { info: { version: "1" }, components: { schemas: null } },
      "the document has no components.schemas; is it OpenAI's OpenAPI document?",
    ],
    ["no info.version", { components: { schemas: { Root: {} } } }, "the document has no info.version; is it OpenAI's OpenAPI document?"],
    ["a missing root", doc({ Other: {} }), "the document has no schema Root (referenced from the roots)"],
    ["a dangling $ref", doc({ Root: { items: ref("Gone") } }), "the document has no schema Gone (referenced from Root)"],
    [
      "a $ref outside components",
      doc({ Root: { properties: { a: { $ref: "other.json#/X" } } } }),
      "Root has a $ref outside #/components/schemas/: other.json#/X",
    ],
  ])("rejects %s with one actionable line", (_name, input, message) => {
    expect(() => pruneOpenApiSpec(input, ["Root"])).toThrow(new Error(message));
  });

  test("rejects a root named like an Object builtin", () => {
    expect(() => pruneOpenApiSpec(doc({}), ["constructor"])).toThrow(new Error("the document has no schema constructor (referenced from the roots)"));
  });
});

describe("the vendored file", () => {
  test("is exactly what the refresh script writes: closed under $ref, nothing unreachable, no annotations", () => {
    const again = pruneOpenApiSpec(VENDORED, SCHEMA_NAMES);
    expect(again.schemas).toEqual(VENDORED.components.schemas);
    expect(renderVendoredSpec(again, VENDORED["x-vendored"].source, VENDORED["x-vendored"].sha256)).toBe(VENDORED_TEXT);
  });

  test("records the spec version, its source, the roots and the refresh command", () => {
    expect(VENDORED.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(VENDORED.info.license).toEqual({ name: "MIT", identifier: "MIT" });
    expect(VENDORED["x-vendored"]).toEqual({
      source: expect.stringMatching(/\.json$/),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      roots: [...SCHEMA_NAMES],
      refresh: VENDOR_COMMAND,
    });
    expect(Object.keys(VENDORED.components.schemas)).toEqual(expect.arrayContaining([...SCHEMA_NAMES]));
  });

  test("docs/development.md names the vendored version and the refresh command", () => {
    const doc = readFileSync(join(ROOT, "docs", "development.md"), "utf8").replace(/\s+/g, " ");
    expect(doc).toContain(`OpenAPI document (version ${VENDORED.info.version}, recorded in the file's \`info.version\``);
    expect(doc).toContain("bun run vendor:openai-spec path/to/openai-openapi.json");
  });

  test("has OpenAI's MIT licence beside it", () => {
    const licence = readFileSync(join(dirname(VENDORED_PATH), "LICENSE"), "utf8");
    expect(licence.split("\n").slice(0, 3)).toEqual(["The MIT License", "", "Copyright (c) OpenAI (https://openai.com)"]);
    expect(licence).toContain("The above copyright notice and this permission notice shall be included");
  });
});

describe("bun run vendor:openai-spec", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "shiro-vendor-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function run(...args: string[]) {
    const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8", timeout: 30_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  test("writes the pruned document to the output it is given and reports what it kept", () => {
    const input = join(dir, "openai-openapi.json");
    const output = join(dir, "out.json");
    const source = JSON.stringify({ ...VENDORED, info: { ...VENDORED.info, description: "the full document" } });
    writeFileSync(input, source);
    const result = run(input, output);
    const written = readFileSync(output, "utf8");
    expect(result).toEqual({
      code: 0,
      stderr: "",
      stdout: `${output}: OpenAI API ${VENDORED.info.version}, ${Object.keys(VENDORED.components.schemas).length} schemas, ${Buffer.byteLength(written).toLocaleString("en-US")} bytes\n`,
    });
    expect(JSON.parse(written)).toEqual({
      ...VENDORED,
      "x-vendored": { ...VENDORED["x-vendored"], sha256: new Bun.CryptoHasher("sha256").update(source).digest("hex") },
    });
    expect(readdirSync(dir).sort()).toEqual(["openai-openapi.json", "out.json"]);
  });

  test.each([
    [[], 2, `usage: ${VENDOR_COMMAND} [output]\n`],
    [["a", "b", "c"], 2, `usage: ${VENDOR_COMMAND} [output]\n`],
    [["--help"], 2, `usage: ${VENDOR_COMMAND} [output]\n`],
  ])("bad arguments %j: exit %d, one usage line", (args, code, stderr) => {
    expect(run(...args)).toEqual({ code, stdout: "", stderr });
  });

  test.each([
    ["not JSON", "{", /^vendor:openai-spec: \S+ is not JSON \(.+\)\n$/],
    ["not an OpenAPI document", "[]", /^vendor:openai-spec: the document has no components\.schemas; is it OpenAI's OpenAPI document\?\n$/],
    [
      "a licence that is not MIT",
      JSON.stringify({ ...VENDORED, info: { ...VENDORED.info, license: { name: "Proprietary" } } }),
      /^vendor:openai-spec: the document's licence is \{"name":"Proprietary"\}, not MIT; review test\/fakes\/openai-spec\/LICENSE before vendoring\n$/,
    ],
  ])("%s: exit 1, one line, no output file", (_name, content, stderr) => {
    const input = join(dir, "in.json");
    writeFileSync(input, content);
    const result = run(input, join(dir, "out.json"));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(stderr);
    expect(readdirSync(dir)).toEqual(["in.json"]);
  });

  test("a missing input: exit 1, one line naming it", () => {
    const result = run(join(dir, "missing.json"), join(dir, "out.json"));
    expect(result).toEqual({ code: 1, stdout: "", stderr: expect.stringMatching(/^vendor:openai-spec: ENOENT: .*missing\.json.*\n$/) });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("the repository stands alone", () => {
  // Every path a source file builds from its own location, as a literal, must stay inside the repository.
  const PATTERNS = [
    /new URL\(\s*["'`]([^"'`$]+)["'`]\s*,\s*import\.meta\.url\s*\)/g,
    /(?:join|resolve)\(\s*import\.meta\.dir((?:\s*,\s*["'][^"']*["'])+)\s*\)/g,
  ];

  function listSources(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      if (name === "node_modules" || name === "dist" || name.startsWith(".")) return [];
      const path = join(dir, name);
      return statSync(path).isDirectory() ? listSources(path) : /\.(ts|js|mjs)$/.test(name) ? [path] : [];
    });
  }

  test("no source builds a path outside the repository from its own location", () => {
    const escapes: string[] = [];
    let seen = 0;
    for (const file of listSources(ROOT)) {
      const text = readFileSync(file, "utf8");
      for (const pattern of PATTERNS) {
        for (const match of text.matchAll(pattern)) {
          const parts = pattern === PATTERNS[0] ? [match[1]!] : [...match[1]!.matchAll(/["']([^"']*)["']/g)].map((m) => m[1]!);
          const target = resolve(dirname(file), ...parts);
          seen++;
          if (relative(ROOT, target).startsWith("..")) escapes.push(`${relative(ROOT, file)}: ${match[0]}`);
        }
      }
    }
    expect(seen).toBeGreaterThan(10);
    expect(escapes).toEqual([]);
  });
});
