/** /search in the REPL: each snippet under its row, wrapped by words to the width, marks bold. */
import { expect, test } from "bun:test";
import type { SearchHit } from "../../lib/find/search.ts";
import { formatSearchLines } from "../../lib/ui/search-lines.ts";

const text = "the flaky login redirect happens after sign-in because the session cookie is written too late";
const hit: SearchHit = {
  kind: "session",
  role: "prompt",
  id: "0193ab2c-0000-7000-8000-000000000000",
  shortId: "0193ab2c",
  at: "not a time",
  project: "/home/u/src/app",
  score: 1,
  snippet: { text, marks: [[10, 15]] },
};

test("with a width, the snippet goes under its row, indented, wrapped by words; without one it stays on the row", () => {
  const [wrapped] = formatSearchLines([hit], "login", { bold: false, home: "/home/u", width: 40 });
  const lines = wrapped!.split("\n");
  expect(lines[0]).toBe("session 0193ab2c  not a time  ~/src/app  prompt");
  for (const line of lines.slice(1)) expect([line, line.length <= 40, line.startsWith("    ")]).toEqual([line, true, true]);
  expect(
    lines
      .slice(1)
      .map((line) => line.trim())
      .join(" "),
  ).toBe(text);
  expect(formatSearchLines([hit], "login", { bold: false, home: "/home/u" })).toEqual([`session 0193ab2c  not a time  ~/src/app  prompt  ${text}`]);
});

test("bold marks do not count toward the width", () => {
  const [wrapped] = formatSearchLines([hit], "login", { bold: true, width: 40 });
  // eslint-disable-next-line no-control-regex
  for (const line of wrapped!.split("\n").slice(1)) expect(line.replace(/\x1b\[[0-9;]*m/g, "").length).toBeLessThanOrEqual(40);
  expect(wrapped).toContain("\x1b[1mlogin\x1b[22m");
});
