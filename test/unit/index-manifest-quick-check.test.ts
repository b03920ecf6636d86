/**
 * The index manifest's hand check (lib/search/index-manifest.ts) knows exactly the schema's
 * fields, so a manifest as this version writes it is read without building the schema; what it
 * passes, the schema passes with the same output (unknown keys dropped), and what it refuses gets
 * the schema's verdict, with readJson's reasons.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { MANIFEST_VERSION, manifestQuickCheckHolds, readManifest } from "../../lib/search/index-manifest.ts";
import { readJson } from "../../lib/state-file/json-file.ts";
import { TOKENIZER_VERSION } from "../../lib/search/tokenize.ts";

const MANIFEST = {
  version: MANIFEST_VERSION,
  tokenizer: TOKENIZER_VERSION,
  generation: 3,
  next: 4,
  segments: [
    { file: "000001.seg", docs: 12, bytes: 4_096, last: ["run:019b", "session:019c"] },
    { file: "000003.seg", docs: 2, bytes: 700 },
  ],
  dead: { "000001.seg": [0, 2, 5, 1] },
  docs: 11,
  totalLen: 240,
  meta: { sessions: "12:1.5", events: "13:2.5" },
  checkedAt: "2026-12-01T10:00:00.000Z",
};

/** What reading the file by readJson and the schema alone gives, as readManifest states it. */
function bySchema(path: string): ReturnType<typeof readManifest> {
  const schema = v.object({
    version: v.literal(MANIFEST_VERSION),
    tokenizer: v.number(),
    generation: v.pipe(v.number(), v.integer(), v.minValue(0)),
    next: v.pipe(v.number(), v.integer(), v.minValue(0)),
    segments: v.array(
      v.object({
        file: v.pipe(v.string(), v.regex(/^\d{6,}\.seg$/)),
        docs: v.pipe(v.number(), v.integer(), v.minValue(0)),
        bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
        last: v.optional(v.array(v.string())),
      }),
    ),
    dead: v.record(v.string(), v.array(v.pipe(v.number(), v.integer(), v.minValue(0)))),
    docs: v.pipe(v.number(), v.integer(), v.minValue(0)),
    totalLen: v.pipe(v.number(), v.integer(), v.minValue(0)),
    meta: v.record(v.string(), v.string()),
    checkedAt: v.optional(v.string()),
  });
  const read = readJson(path, { schema, version: MANIFEST_VERSION });
  if (read.status === "missing") return { status: "missing" };
  if (read.status === "corrupt") return /format version/.test(read.reason) ? { status: "missing" } : { status: "corrupt", reason: read.reason };
  if (read.value.tokenizer !== TOKENIZER_VERSION) return { status: "missing" };
  return { status: "ok", manifest: read.value };
}

describe("the manifest's hand check", () => {
  test("knows every field of the schema", () => {
    expect(manifestQuickCheckHolds()).toBe(true);
  });

  // A later "meta" wins in JSON.parse: a meta whose one key is __proto__, as an own property.
  const protoMeta = `${JSON.stringify(MANIFEST).slice(0, -1)},"meta":{"__proto__":"x"}}`;
  const cases: [string, unknown][] = [
    ["as written", MANIFEST],
    ["without checkedAt", { ...MANIFEST, checkedAt: undefined }],
    ["with unknown keys", { ...MANIFEST, extra: 1, segments: [{ ...MANIFEST.segments[0], more: true }] }],
    ["empty", { ...MANIFEST, segments: [], dead: {}, docs: 0, totalLen: 0, meta: {} }],
    ["another tokenizer", { ...MANIFEST, tokenizer: TOKENIZER_VERSION + 1 }],
    ["another version", { ...MANIFEST, version: MANIFEST_VERSION + 1 }],
    ["an older version", { ...MANIFEST, version: 1 }],
    ["a negative count", { ...MANIFEST, docs: -1 }],
    ["a fractional count", { ...MANIFEST, generation: 1.5 }],
    ["a count as text", { ...MANIFEST, next: "4" }],
    ["a segment file of another name", { ...MANIFEST, segments: [{ file: "1.seg", docs: 1, bytes: 1 }] }],
    ["a segment without bytes", { ...MANIFEST, segments: [{ file: "000001.seg", docs: 1 }] }],
    ["a segment's last names empty", { ...MANIFEST, segments: [{ file: "000001.seg", docs: 1, bytes: 1, last: [] }] }],
    ["a segment's last names not a list", { ...MANIFEST, segments: [{ file: "000001.seg", docs: 1, bytes: 1, last: { run: "run:1" } }] }],
    ["a segment's last name not text", { ...MANIFEST, segments: [{ file: "000001.seg", docs: 1, bytes: 1, last: ["run:1", 2] }] }],
    ["a segment's last names null", { ...MANIFEST, segments: [{ file: "000001.seg", docs: 1, bytes: 1, last: null }] }],
    ["dead ranges that are not counts", { ...MANIFEST, dead: { "000001.seg": [0, "2"] } }],
    ["dead that is a list", { ...MANIFEST, dead: [] }],
    ["meta that is not text", { ...MANIFEST, meta: { sessions: 1 } }],
    ["a meta key valibot keeps apart", protoMeta],
    ["checkedAt that is not text", { ...MANIFEST, checkedAt: 5 }],
    ["segments that are not a list", { ...MANIFEST, segments: {} }],
    ["not an object", [MANIFEST]],
    ["null", null],
  ];
  test.each(cases)("%s: the schema's answer", (_name, value) => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-manifest-"));
    const path = join(dir, "manifest.json");
    writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
    try {
      expect(readManifest(path)).toEqual(bySchema(path));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a missing, empty or torn file: readJson's verdict", () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-manifest-"));
    const path = join(dir, "manifest.json");
    try {
      expect(readManifest(path)).toEqual({ status: "missing" });
      for (const text of ["", "{ torn"]) {
        writeFileSync(path, text);
        expect(readManifest(path)).toEqual(bySchema(path));
        expect(readManifest(path).status).toBe("corrupt");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
