/**
 * The REPL as a person sees it: the built binary in a tmux window, read back as the rows on
 * screen (test/e2e/_tmux.ts), for what a byte stream cannot tell: a wrapped prompt drawn once
 * after a resize, and a running command's tail redrawn in place, bounded, then folded.
 */
import { expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeEnv, latch, useE2E } from "./_harness.ts";
import { hostDescribe, hostTest } from "../host-packages.ts";
import { startTmux, tmuxPackage, type TmuxDriver } from "./_tmux.ts";

const e2e = useE2E();

async function withTmux(args: string[], body: (screen: TmuxDriver) => Promise<void>): Promise<void> {
  const screen = startTmux(args, { cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat"), cols: 80, rows: 30 });
  try {
    await screen.until((rows) => rows.some((row) => row.startsWith("›")), "the prompt");
    await body(screen);
  } finally {
    screen.kill();
  }
}

const LONG = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
const count = (rows: string[], text: string) => rows.join("\n").split(text).length - 1;

hostDescribe(tmuxPackage, "a wrapped prompt and a resize", () => {
  // Narrower alone is the first step of the third.
  const widths: [string, number[]][] = [
    ["wider", [120]],
    ["narrower, then wider, then narrower again", [50, 120, 60]],
  ];
  for (const [name, steps] of widths) {
    hostTest(
      tmuxPackage,
      `${name}: the prompt is drawn once, the rows above it kept`,
      async () => {
        await withTmux([], async (screen) => {
          screen.type(LONG);
          await screen.until((rows) => rows.join("").includes("word29"), "the typed prompt");
          for (const cols of steps) {
            screen.resize(cols, 30);
            // The redraw lands within a moment; wait for the prompt's last word at the new width, then let it settle.
            await Bun.sleep(200);
            const rows = await screen.settled((now) => now.join("").includes("word29"), `the prompt at ${cols} columns`);
            expect(count(rows, "› word0 ")).toBe(1);
            expect(count(rows, "/help for commands")).toBe(1);
            expect(rows.join("").replace(/ /g, "")).toContain(LONG.replace(/ /g, ""));
          }
          screen.type("\r");
          await screen.until((rows) => count(rows, "in context") === 1, "the answer");
        });
        expect(e2e.fake.requests.at(-1)!.body.messages.at(-1).content).toBe(LONG);
      },
      40_000,
    );
  }

  hostTest(
    tmuxPackage,
    "typed ahead under a running turn's footer: after a resize, the footer and the prompt are drawn once",
    async () => {
      const drawn = latch();
      e2e.fake.script({ text: "slow answer", holdUntil: drawn.promise }, { text: "typed-ahead answer" });
      await withTmux([], async (screen) => {
        screen.type("first\r");
        await screen.until((rows) => rows.some((row) => row.startsWith("… ")), "the status line");
        screen.type(LONG);
        await screen.until((rows) => rows.join("").includes("word29"), "the typed prompt");
        screen.resize(50, 30);
        await Bun.sleep(200);
        const rows = await screen.settled((now) => now.join("").includes("word29"), "the prompt at 50 columns");
        expect(count(rows, "› word0 ")).toBe(1);
        expect(rows.filter((row) => row.startsWith("… "))).toHaveLength(1);
        drawn.release();
        await screen.until((rows) => count(rows, "in context") === 1, "the answer");
        screen.type("\r");
        await screen.until((rows) => rows.join("\n").includes("typed-ahead answer"), "the second answer");
      });
      expect(e2e.fake.requests.at(-1)!.body.messages.at(-1).content).toBe(LONG);
    },
    40_000,
  );
});

hostDescribe(tmuxPackage, "a running command's live tail", () => {
  hostTest(
    tmuxPackage,
    "shows its last 5 lines in place while it runs, then only its folded head",
    async () => {
      // Each line waits for the test to have seen it on screen (the file .go-N), so every state of the tail is read.
      const command = "for i in $(seq 1 12); do echo line-$i; until test -e .go-$i; do sleep 0.02; done; done";
      e2e.fake.script({ toolCalls: [{ name: "bash", input: { command } }] }, { text: "slow done" });
      await withTmux(["--yolo"], async (screen) => {
        screen.type("run slowly\r");
        const seen: string[][] = [];
        for (let i = 1; i <= 12; i++) {
          await screen.until((rows) => {
            seen.push(rows);
            return rows.some((row) => row.endsWith(`│ line-${i}`));
          }, `line-${i}`);
          writeFileSync(join(e2e.dirs.cwd, `.go-${i}`), "");
        }
        await screen.until((rows) => {
          seen.push(rows);
          return rows.some((row) => row.includes("slow done"));
        }, "the end of the turn");
        const tails = seen.map((rows) => rows.filter((row) => /^ {2}│ line-/.test(row)).map((row) => row.trim()));
        // Never more than the head (3) and the tail (5) at once, each line at most once.
        for (const tail of tails) {
          expect(tail.length).toBeLessThanOrEqual(8);
          expect(new Set(tail).size).toBe(tail.length);
        }
        // Once it has printed 8 lines or more: the head, then the 5 latest lines, whichever moment the screen was read.
        const midway = tails.filter((tail) => tail.length === 8);
        expect(midway.length).toBeGreaterThan(0);
        for (const tail of midway) {
          const last = Number(tail.at(-1)!.replace("│ line-", ""));
          expect(tail).toEqual(["│ line-1", "│ line-2", "│ line-3", ...[4, 3, 2, 1, 0].map((back) => `│ line-${last - back}`)]);
        }
        const end = screen.rows();
        expect(end.filter((row) => /^ {2}│ line-/.test(row))).toEqual(["  │ line-1", "  │ line-2", "  │ line-3"]);
        expect(end).toContain("  … +9 lines (Ctrl-O or /expand 1)");
      });
    },
    40_000,
  );
});
