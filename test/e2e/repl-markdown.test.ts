/**
 * Answers rendered as Markdown while they stream, through the built binary in a pseudo-terminal
 * of 40, 80 and 160 columns: styled on a terminal, plain under NO_COLOR and TERM=dumb, wrapped by
 * words to the width (and to the new width after a resize).
 */
import { describe, expect, test } from "bun:test";
import { fakeEnv, useE2E } from "./_harness.ts";
import { withPty, type PtyDriver } from "./_pty.ts";

const e2e = useE2E();

const PARAGRAPH =
  "Rendering answers properly matters because internationalization, accessibility and readability all suffer when long sentences are broken in the middle of their words by a careless terminal.";
const ANSWER = [
  "## Release plan\n\n",
  `${PARAGRAPH}\n\n`,
  "- first **bold** step\n- second *quiet* step\n\n",
  "| name | size |\n|------|------|\n| alpha | 12 |\n| beta | 345 |\n\n",
  "```ts\nconst answer: number = 42; // the value\n```\n\n",
  "Read [the docs](https://example.com/docs) next.\n",
];
// A chunk boundary inside a word, a fence and a table row, as a provider's stream cuts them.
const CHUNKS = ANSWER.join("").match(/[\s\S]{1,9}/g)!;

const withRepl = (cols: number, env: Record<string, string>, body: (repl: PtyDriver) => Promise<void>): Promise<void> =>
  withPty({ cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: { ...fakeEnv(e2e.fake.baseURL, "chat"), ...env }, cols }, body);

/**
 * The answer's lines on the screen, from the heading to the line after the link. The footer drawn
 * below a running turn (`… 3s` and the input line) is erased by cursor moves, which the driver's
 * screen drops: its status lines are left out and its `› ` taken off the line written over it.
 */
function answerLines(screen: string): string[] {
  const start = screen.lastIndexOf("Release plan");
  const end = screen.indexOf("next.", start) + "next.".length;
  return screen
    .slice(start, end)
    .split("\n")
    .filter((line) => !line.startsWith("… "))
    .map((line) => line.replace(/^(› )+/, ""));
}

/** The paragraph's words, in order, as the screen shows them. */
function paragraphWords(lines: string[]): string[] {
  const words = PARAGRAPH.split(" ");
  const start = lines.findIndex((line) => line.startsWith("Rendering"));
  return lines
    .slice(start)
    .join(" ")
    .split(/\s+/)
    .filter((word) => word !== "")
    .slice(0, words.length);
}

/** A colour terminal (the driver's environment sets NO_COLOR otherwise). */
const STYLED = { NO_COLOR: "", TERM: "xterm-256color" };

// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/;

describe("markdown answers", () => {
  for (const cols of [40, 80, 160]) {
    test(`at ${cols} columns: styled on a terminal, wrapped by words`, async () => {
      e2e.fake.script({ text: CHUNKS });
      await withRepl(cols, STYLED, async (repl) => {
        repl.type("plan it\r");
        await repl.until("next.");
        await repl.until("in context");
        const lines = answerLines(repl.screen());
        for (const line of lines) expect([line, line.length <= cols]).toEqual([line, true]);
        expect(paragraphWords(lines)).toEqual(PARAGRAPH.split(" "));
        const screen = repl.screen();
        for (const marker of ["## ", "**bold**", "*quiet*", "```", "|------|"]) expect(screen).not.toContain(marker);
        expect(screen).toContain("- first bold step");
        expect(screen).toMatch(/│ alpha\s*│ 12\s*│/);
        expect(screen).toContain("const answer: number = 42; // the value");
        const raw = repl.raw();
        expect(raw).toContain("\x1b[1mRelease plan");
        expect(raw).toContain("\x1b[1mbold\x1b[22m");
        expect(raw).toContain("\x1b[3mquiet\x1b[23m");
        // The code block is highlighted: the keyword and the comment are coloured.
        expect(raw).toMatch(/\x1b\[\d+mconst\x1b\[39m/);
        expect(raw).toMatch(/\x1b\[\d+m\/\/ the value\x1b\[39m/);
      });
    }, 30_000);
  }

  const plain: [string, Record<string, string>][] = [
    ["NO_COLOR", { NO_COLOR: "1" }],
    ["TERM=dumb", { TERM: "dumb" }],
  ];
  for (const [name, env] of plain) {
    for (const cols of [40, 80]) {
      test(`under ${name} at ${cols} columns: the same layout, plain`, async () => {
        e2e.fake.script({ text: CHUNKS });
        await withRepl(cols, env, async (repl) => {
          repl.type("plan it\r");
          await repl.until("next.");
          await repl.until("in context");
          const lines = answerLines(repl.screen());
          for (const line of lines) expect([line, line.length <= cols]).toEqual([line, true]);
          expect(paragraphWords(lines)).toEqual(PARAGRAPH.split(" "));
          expect(repl.screen()).toContain("- first bold step");
          expect(repl.screen()).not.toContain("**bold**");
          expect(SGR.test(repl.raw())).toBe(false);
        });
      }, 30_000);
    }
  }

  test("after a resize, the next answer wraps to the new width", async () => {
    e2e.fake.script({ text: "first" }, { text: CHUNKS });
    await withRepl(160, STYLED, async (repl) => {
      repl.type("one\r");
      await repl.until("in context");
      repl.resize(40);
      await Bun.sleep(200);
      repl.type("two\r");
      await repl.until("next.");
      const lines = answerLines(repl.screen());
      for (const line of lines) expect([line, line.length <= 40]).toEqual([line, true]);
      expect(paragraphWords(lines)).toEqual(PARAGRAPH.split(" "));
    });
  }, 30_000);
});

test("the banner at 40 columns wraps by words, continued lines indented", async () => {
  await withRepl(40, {}, async (repl) => {
    await repl.until("/help for commands");
    const banner = repl.screen().slice(0, repl.screen().indexOf("/help for commands"));
    const lines = banner.split("\n").filter((line) => line !== "");
    for (const line of lines) expect([line, line.length <= 40 || !line.includes(" ")]).toEqual([line, true]);
    expect(banner).toContain("approvals: ask for write_file,\n  edit_file, bash, multi_edit,\n");
  });
}, 30_000);
