/**
 * Terminal control sequences in text shiro did not write never reach the terminal raw, through
 * the binary: a table of sequences (CSI, OSC 52 clipboard writes, OSC 8 links, C1 CSI, BEL,
 * backspace and carriage-return overwrites) in a note, in a session's prompt and answer, and in
 * a `-p` answer. `shiro memory list`, `memory show`, `shiro search` and `sessions show` print them
 * in caret form (`^[`); a `-p` answer piped to a file is the model's text with them stripped; the
 * `--json` outputs hold the exact text, escaped by JSON. In the REPL (a real terminal), the answer
 * and a command's output show the sequences in caret form while shiro's own colours stay.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fakeEnv, useE2E } from "./_harness.ts";
import { startPty } from "./_pty.ts";

const e2e = useE2E();

/** [sequence, how a listing shows it, what a `-p` answer keeps] */
const SEQUENCES: readonly (readonly [string, string, string])[] = [
  ["\x1b[2J\x1b[H", "^[[2J^[[H", ""],
  ["\x1b]52;c;cm0gLXJmIH4=\x07", "^[]52;c;cm0gLXJmIH4=^G", ""],
  ["\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "^[]8;;https://evil.example^[\\link^[]8;;^[\\", "link"],
  ["\x9b31m", "^[[31m", ""],
  ["\x07", "^G", ""],
  ["sure\b\b\b\bnope", "sure^H^H^H^Hnope", "surenope"],
  ["bad\rgood", "bad^Mgood", "badgood"],
  ["\x1b]0;title\x1b\\", "^[]0;title^[\\", ""],
];
const HOSTILE = SEQUENCES.map(([raw], i) => `w${i}${raw}`).join(" ");
const SHOWN = SEQUENCES.map(([, shown], i) => `w${i}${shown}`).join(" ");
const STRIPPED = SEQUENCES.map(([, , kept], i) => `w${i}${kept}`).join(" ");

// A note keeps one line: the store makes a line break (the CR) a space.
const NOTE = HOSTILE.replace("\r", " ");
const NOTE_SHOWN = SHOWN.replace("^M", " ");

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters being looked for
const RAW_CONTROL = /[\x00-\x08\x0B-\x1F\x7F-\x9F]/;

describe("text from outside shiro on the terminal", () => {
  test("a note: memory list and memory show show the sequences in caret form; --json keeps them exactly", async () => {
    expect((await e2e.shiro(["memory", "add", "fact", `zebra ${HOSTILE}`])).code).toBe(0);
    const list = await e2e.shiro(["memory", "list"]);
    expect(list.code).toBe(0);
    expect(RAW_CONTROL.test(list.stdout.replace(/\n$/, ""))).toBe(false);
    expect(list.stdout).toContain(`(fact) zebra ${NOTE_SHOWN}\n`);
    const json = await e2e.shiro(["memory", "list", "--json"]);
    const [note] = JSON.parse(json.stdout) as { id: string; text: string }[];
    expect(note!.text).toBe(`zebra ${NOTE}`);
    const show = await e2e.shiro(["memory", "show", note!.id.slice(0, 8)]);
    expect(show.stdout).toContain(`text: zebra ${NOTE_SHOWN}\n`);
    expect(RAW_CONTROL.test(show.stdout.replaceAll("\n", ""))).toBe(false);
  }, 60_000);

  test("a -p answer is the model's text with the sequences stripped; search and sessions show show them", async () => {
    e2e.fake.script({ text: [`zebra ${HOSTILE.slice(0, 7)}`, `${HOSTILE.slice(7, 31)}`, `${HOSTILE.slice(31)} done`] });
    const run = await e2e.shiro(["-p", `find the zebra ${HOSTILE}`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`zebra ${STRIPPED} done\n`);

    const search = await e2e.shiro(["search", "zebra"]);
    expect(search.code).toBe(0);
    expect(RAW_CONTROL.test(search.stdout.replaceAll("\n", ""))).toBe(false);
    expect(search.stdout).toContain("^[]52;c;cm0gLXJmIH4=^G");
    const hits = JSON.parse((await e2e.shiro(["search", "zebra", "--json"])).stdout) as { snippet: { text: string } }[];
    expect(hits.some((hit) => hit.snippet.text.includes("\x1b]52;c;cm0gLXJmIH4=\x07"))).toBe(true);

    const [sessionId] = readdirSync(join(e2e.dirs.home, ".shiro-neko", "sessions"))
      .filter((name) => name.endsWith(".json"))
      .map((name) => name.slice(0, -5));
    const details = await e2e.shiro(["sessions", "show", sessionId!]);
    expect(details.code).toBe(0);
    expect(RAW_CONTROL.test(details.stdout.replaceAll("\n", ""))).toBe(false);
    expect(details.stdout).toContain(`> find the zebra ${SHOWN}\n`);
    expect(details.stdout).toContain(`zebra ${SHOWN} done`);
    const record = JSON.parse((await e2e.shiro(["sessions", "show", sessionId!, "--json"])).stdout) as { exchanges: { query: string }[] };
    expect(record.exchanges.at(-1)!.query).toBe(`find the zebra ${HOSTILE}`);
  }, 90_000);
});

describe("the REPL on a terminal", () => {
  test("the model's answer and a command's output reach the terminal in caret form, never raw", async () => {
    e2e.fake.script(
      { toolCalls: [{ name: "bash", input: { command: "printf 'out \\033]52;c;eA==\\007 \\033[2J done\\n'" } }] },
      { text: ["answer \x1b]0;own", "ed\x07 and \x9b2J", " end\n"] },
    );
    const repl = startPty(["--yolo"], {
      cwd: e2e.dirs.cwd,
      home: e2e.dirs.home,
      env: { ...fakeEnv(e2e.fake.baseURL, "chat"), NO_COLOR: "", TERM: "xterm-256color" },
    });
    try {
      await repl.until("› ");
      repl.type("go\r");
      await repl.until("in context");
      const raw = repl.raw();
      expect(["\x1b]52;c;eA==", "\x1b]0;owned", "\x9b", "\x1b[2J"].filter((needle) => raw.includes(needle))).toEqual([]);
      const screen = repl.screen();
      expect(screen).toContain("out ^[]52;c;eA==^G ^[[2J done");
      expect(screen).toContain("answer ^[]0;owned^G and ^[[2J end");
      // shiro's own styling is still there
      expect(raw).toMatch(/\x1b\[\d+m/);
    } finally {
      repl.kill();
      await repl.exited;
    }
  }, 60_000);
});
