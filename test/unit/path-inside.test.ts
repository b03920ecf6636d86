import { describe, expect, test } from "bun:test";
import { isInside } from "../../lib/platform/path-inside.ts";

/** [root, path, inside] — every spelling of the same answer. */
const TABLE: readonly (readonly [string, string, boolean])[] = [
  ["/w", "/w", true],
  ["/w", "/w/", true],
  ["/w/", "/w/a", true],
  ["/w", "/w/a/b", true],
  ["/w", "/w/..foo", true],
  ["/w", "/w/..", false],
  ["/w", "/w/../x", false],
  ["/w", "/w/a/../../x", false],
  ["/w", "/wx", false],
  ["/w", "/", false],
  ["/w", "/x/w", false],
  ["/", "/anything", true],
];

describe("isInside", () => {
  test.each(TABLE)("%s holds %s: %p", (root, path, inside) => {
    expect(isInside(root, path)).toBe(inside);
  });
});
