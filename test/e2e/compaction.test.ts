/**
 * Compaction through the binary, against a fake provider with a small context window: a 150-step
 * turn of a session continued with `-c` in a new process overflows it several times and still ends
 * because the script ends; every request keeps the earlier exchange whole (or its summary) and
 * ends with the current request; the fake accepts every request; and recall_discarded brings back
 * a marker that only a pruned tool result held. Over one protocol here: the same over every
 * protocol is test/unit/agent-compaction.test.ts's, in-process (the turn and its expects are
 * test/compaction-case.ts's).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG, expectLongTurn, FIRST_ANSWER, FIRST_PROMPT, MARKER, respondLongTurn, SECOND_PROMPT, STEPS, writeLongTurnFiles } from "../compaction-case.ts";
import { parseEventLines, userTextsOf, useE2E } from "./_harness.ts";

const e2e = useE2E({ contextWindow: 9_000 });

/** The one protocol the long turn runs over in a process of its own. */
const protocol = "chat";

describe(`compaction over ${protocol}`, () => {
  test(`a ${STEPS}-step turn that overflows the window completes because the script ends`, async () => {
    const { dirs, fake } = e2e;
    e2e.writeConfig(CONFIG);
    writeLongTurnFiles(dirs.cwd);

    fake.script({ text: FIRST_ANSWER });
    const first = await e2e.shiro(["-p", FIRST_PROMPT], { protocol });
    expect(first.code).toBe(0);

    const summaries = respondLongTurn(fake);
    const second = await e2e.shiro(["-p", SECOND_PROMPT, "-c", "--json"], { protocol, timeoutMs: 120_000 });
    fake.respond(() => ({ error: { status: 500, message: "unexpected request" } }));
    expect(second.code).toBe(0);
    const events = parseEventLines(second.stdout);
    expect(events.at(-1)).toMatchObject({ type: "done", stop: "completed", steps: STEPS });
    expect(fake.violations).toEqual([]);

    const compacted = events.filter((event) => event.type === "compacted");
    expectLongTurn(fake.requests, compacted, summaries());

    const sessions = join(dirs.home, ".shiro-neko", "sessions");
    const saved = JSON.parse(readFileSync(join(sessions, readdirSync(sessions).find((n) => n.endsWith(".json"))!), "utf8"));
    expect(saved.compaction.spans.length).toBe(compacted.filter((event) => event.span).length);
    expect(JSON.stringify(saved.messages)).toContain(MARKER);
    const log = readFileSync(join(dirs.home, ".shiro-neko", "events", `${events[0]!.runId}.jsonl`), "utf8");
    expect(log).toContain('"type":"compacted"');
  }, 150_000);
});

describe("shiro sessions compact / uncompact / show", () => {
  test("compact replaces the transcript with the summary and archives it; uncompact brings it back", async () => {
    const { dirs, fake } = e2e;
    const shiro = (args: string[]) => e2e.shiro(args, { protocol: "anthropic" });
    fake.script({ toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { text: "Nothing here yet." });
    expect((await shiro(["-p", "look around"])).code).toBe(0);
    const sessions = join(dirs.home, ".shiro-neko", "sessions");
    const file = join(sessions, readdirSync(sessions).find((name) => name.endsWith(".json"))!);
    const before = JSON.parse(readFileSync(file, "utf8"));
    expect(before.messages).toHaveLength(4);

    fake.script({ text: "## Goal\n- look around\n## What remains\n- nothing" });
    const compact = await shiro(["sessions", "compact", before.id, "--focus", "the empty folder"]);
    expect([compact.code, compact.stdout]).toEqual([0, "compacted 4 messages into 1\n"]);
    expect(userTextsOf(fake.requests.at(-1)!)[0]).toContain("Pay most attention to: the empty folder");
    const after = JSON.parse(readFileSync(file, "utf8"));
    expect(after.messages).toEqual([{ role: "user", content: "Summary of the session so far:\n\n## Goal\n- look around\n## What remains\n- nothing" }]);
    expect(after.compaction.archive[0].messages).toEqual(before.messages);
    expect(after.compaction.archive[0].focus).toBe("the empty folder");

    const show = await shiro(["sessions", "show", before.id]);
    expect(show.stdout).toMatch(
      /context {3}~\d+ tokens \(estimate\), 0% of the 120000 compaction threshold \(window 200000, model table\); 1 transcript archived by compact/,
    );

    const undo = await shiro(["sessions", "uncompact", before.id.slice(0, 13)]);
    expect(undo.code).toBe(0);
    expect(undo.stdout).toStartWith("restored 4 messages replaced by the compaction of ");
    const restored = JSON.parse(readFileSync(file, "utf8"));
    expect(restored.messages).toEqual(before.messages);
    expect((await shiro(["sessions", "uncompact", before.id])).stdout).toBe("nothing to uncompact: no history has left the wire\n");
  });

  test("show measures the context against the session model's window, as a run would compact it", async () => {
    const { dirs, fake } = e2e;
    fake.script({ text: "hello" });
    expect((await e2e.shiro(["-p", "hi"])).code).toBe(0);
    const sessions = join(dirs.home, ".shiro-neko", "sessions");
    const file = join(sessions, readdirSync(sessions).find((name) => name.endsWith(".json"))!);
    const record = JSON.parse(readFileSync(file, "utf8"));
    // window - min(output limit, window / 4), times 0.8 (lib/agent/context/window.ts)
    const rows: { model: string; config?: object; window: number; threshold: number; label: string }[] = [
      { model: "gpt-5", window: 400_000, threshold: 240_000, label: "model table" },
      { model: "claude-sonnet-4-5", window: 200_000, threshold: 120_000, label: "model table" },
      { model: "qwen3", window: 40_960, threshold: 26_214, label: "model table" },
      { model: "my-local-model", window: 32_768, threshold: 22_937, label: "unknown model: the default" },
      { model: "my-local-model", config: { contextWindow: 16_000 }, window: 16_000, threshold: 9_600, label: "config contextWindow" },
      { model: "gpt-5", config: { compaction: { threshold: 5_000 } }, window: 400_000, threshold: 5_000, label: "model table" },
    ];
    for (const row of rows) {
      e2e.writeConfig(row.config ?? {});
      writeFileSync(file, JSON.stringify({ ...record, model: row.model }));
      const json = await e2e.shiro(["sessions", "show", record.id, "--json"]);
      expect([row.model, JSON.parse(json.stdout).context]).toMatchObject([row.model, { window: row.window, threshold: row.threshold }]);
      const text = await e2e.shiro(["sessions", "show", record.id]);
      expect(text.stdout).toContain(`of the ${row.threshold} compaction threshold (window ${row.window}, ${row.label})`);
    }
  });
});
