/**
 * One member of an entry's data is read without building the rest (lib/search/entry-codec.ts
 * `memberReader`): questions in any order cost one pass over the object, each string of the
 * table looked up once, and answer what the whole value decoded holds. `skipValue` steps over
 * values (one or several) to where decoding them ends, and finds a cut or unknown one corrupt.
 */
import { describe, expect, test } from "bun:test";
import { decodeValue, encodeValue, memberReader, repeatedStrings, skipValue } from "../../lib/search/entry-codec.ts";
import { ByteReader, ByteWriter, IndexCorruptError } from "../../lib/search/segment-layout.ts";

const _CARD = {
  kind: "episode",
  sessionId: "0199aa",
  at: "2026-03-04T05:06:07.000Z",
  ask: "fix the login redirect",
  changed: ["src/a.ts", "src/b.ts"],
  steps: 4,
};

/** `value` encoded against a table of every key and string in it; the table's lookups are counted. */
function _encoded(value: unknown) {
  const table = repeatedStrings([value, value]);
  const out = new ByteWriter();
  encodeValue(out, value, new Map(table.map((text, at) => [text, at])));
  const bytes = out.finish();
  const looked: string[] = [];
  const strings = (at: number) => (looked.push(table[at]!), table[at]!);
  return { bytes, looked, strings, whole: decodeValue(new ByteReader(bytes), table) as Record<string, unknown> };
}

describe("memberReader", () => {
  test("a card's kind, session and date read its first three members once each", () => {
    const { bytes, looked, strings, whole } = _encoded(_CARD);
    const member = memberReader(new ByteReader(bytes), strings);
    expect([member("kind"), member("sessionId"), member("at")]).toEqual(["episode", "0199aa", "2026-03-04T05:06:07.000Z"]);
    // Three keys and three values: a fresh scan per question would look up kind three times, sessionId twice.
    expect(looked).toEqual(["kind", "episode", "sessionId", "0199aa", "at", "2026-03-04T05:06:07.000Z"]);
    expect(whole).toEqual(_CARD);
  });

  test("a member stepped over is answered later, an absent one is undefined, and every answer is the decoded value's", () => {
    const { bytes, strings, whole } = _encoded(_CARD);
    const member = memberReader(new ByteReader(bytes), strings);
    expect(member("steps")).toBe(4);
    expect(member("changed")).toEqual(["src/a.ts", "src/b.ts"]);
    expect(member("kind")).toBe("episode");
    expect(member("absent")).toBeUndefined();
    expect(member("ask")).toBe(whole.ask as string);
    for (const key of Object.keys(_CARD)) expect(memberReader(new ByteReader(bytes), strings)(key)).toEqual(whole[key]);
  });

  test("a value that is not an object has no members", () => {
    for (const value of [["kind"], "kind", 3, null]) {
      const { bytes, strings } = _encoded(value);
      expect(memberReader(new ByteReader(bytes), strings)("kind")).toBeUndefined();
    }
  });
});

describe("skipValue", () => {
  const _VALUES = [_CARD, [_CARD, { nested: [[], {}, [1, -2, 3.5, null, true, false]] }], "x".repeat(300), 2 ** 40, -7, 0.25, null, [], {}];

  test("steps over values, one or several at a time, to where decoding them ends", () => {
    const { bytes, whole } = _encoded(_VALUES);
    expect(whole).toEqual(JSON.parse(JSON.stringify(_VALUES)));
    const reader = new ByteReader(bytes);
    skipValue(reader);
    expect(reader.position).toBe(bytes.length);
    // Past the array's tag and count, its members.
    const members = new ByteReader(bytes);
    members.byte();
    members.varint();
    const decoded = new ByteReader(bytes);
    decoded.position = members.position;
    for (let i = 0; i < 3; i++) decodeValue(decoded, (at) => repeatedStrings([_VALUES, _VALUES])[at]!);
    skipValue(members, 3);
    expect(members.position).toBe(decoded.position);
    skipValue(members, _VALUES.length - 3);
    expect(members.position).toBe(bytes.length);
  });

  test("a value cut short or with an unknown tag is corrupt", () => {
    const { bytes } = _encoded(_VALUES);
    for (let cut = 0; cut < bytes.length; cut++) expect(() => skipValue(new ByteReader(bytes.subarray(0, cut)))).toThrow(IndexCorruptError);
    expect(() => skipValue(new ByteReader(Uint8Array.of(10)))).toThrow(IndexCorruptError);
    expect(() => skipValue(new ByteReader(Uint8Array.of(3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1)))).toThrow("a number is too long");
  });
});
