/** The start-up path's SHA-256 (lib/platform/sha256.ts) gives node:crypto's digest for every length, both ways it hashes. */
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { pureSha256Hex, sha256Hex } from "../../lib/platform/sha256.ts";

const _bytes = (length: number) => new Uint8Array(length).map((_, i) => (i * 131 + 17) & 0xff);
const _want = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

test("every padding boundary and both sides of the plain-code limit", () => {
  for (const length of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 16_383, 16_384, 16_385, 100_000]) {
    const data = _bytes(length);
    expect([length, sha256Hex(data)]).toEqual([length, _want(data)]);
    expect([length, pureSha256Hex(data)]).toEqual([length, _want(data)]);
  }
});

test("a string is hashed as its UTF-8 bytes", () => {
  for (const text of ["", "abc", "/home/ü/プロジェクト", "C:\\Users\\a b\\repo", "😀".repeat(5000)])
    expect([text.slice(0, 20), sha256Hex(text)]).toEqual([text.slice(0, 20), _want(text)]);
  expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});
