/**
 * The live tail a running command shows in the REPL's footer (lib/ui/live-tail.ts): the last
 * lines past the head, bounded, cleaned for one row each, however the output is cut into chunks.
 */
import { describe, expect, test } from "bun:test";
import { LIVE_TAIL_LINES, createLiveTail, fitColumns } from "../../lib/ui/live-tail.ts";

const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `l${from + i}`);

describe("the tail", () => {
  const chunkings: [string, (text: string) => string[]][] = [
    ["one chunk", (text) => [text]],
    ["a chunk per character", (text) => [...text]],
    ["chunks of 4", (text) => text.match(/[\s\S]{1,4}/g)!],
  ];
  for (const [name, cut] of chunkings) {
    test(`${name}: nothing while the head holds it, then the last ${LIVE_TAIL_LINES} lines past the head`, () => {
      const tail = createLiveTail();
      for (const chunk of cut("l1\nl2\nl3\n")) tail.push("a", chunk);
      expect(tail.lines()).toEqual([]);
      for (const chunk of cut(`${lines(4, 20).join("\n")}\n`)) tail.push("a", chunk);
      expect(tail.lines()).toEqual(lines(16, 20));
    });
  }

  test("the line being written counts; a \\r overwrite keeps the last; ANSI, tabs and control characters go", () => {
    const tail = createLiveTail();
    tail.push("a", "1\n2\n3\n\x1b[32mgreen\x1b[0m\ta\x07b\n");
    tail.push("a", "10%\r50%\r90%");
    expect(tail.lines()).toEqual(["green  ab", "90%"]);
  });

  test("another call's output starts a new tail; clear empties it", () => {
    const tail = createLiveTail();
    tail.push("a", `${lines(1, 9).join("\n")}\n`);
    tail.push("b", "x1\nx2\nx3\nx4\n");
    expect(tail.lines()).toEqual(["x4"]);
    tail.clear();
    expect(tail.lines()).toEqual([]);
  });
});

describe("fitting a row", () => {
  const cases: [string, number, string][] = [
    ["short", 10, "short"],
    ["exactly9c", 10, "exactly9c"],
    ["ten chars!", 10, "ten char…"],
    ["日本語のテキスト", 10, "日本語の…"],
  ];
  for (const [text, columns, shown] of cases) test(`${JSON.stringify(text)} at ${columns} columns`, () => expect(fitColumns(text, columns)).toBe(shown));
});
