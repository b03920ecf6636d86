/**
 * The episode line's hand check (lib/store/episode-schema.ts) knows exactly the schema's fields,
 * so it runs without building the schema; and what it passes, the schema passes with the same
 * output, while what it refuses gets the schema's verdict.
 */
import { expect, test } from "bun:test";
import * as v from "valibot";
import { episodeQuickCheckHolds, episodeSchemas, parseEpisode } from "../../lib/store/episode-schema.ts";

const EPISODE = {
  id: "e1",
  sessionId: "s1",
  runIds: ["r1"],
  startedAt: "2026-12-01T10:00:00.000Z",
  endedAt: "2026-12-01T10:01:00.000Z",
  prompts: ["fix the parser"],
  filesRead: ["lib/a.ts"],
  filesChanged: [],
  commands: [{ command: "bun test", exit: 0 }],
  outcome: { status: "completed", steps: 2, runs: 1 },
  answer: "done",
  spans: [],
};

test("the hand check knows every field of the schema", () => {
  expect(episodeQuickCheckHolds()).toBe(true);
});

test("the hand check and the schema agree on a valid line and on broken ones", () => {
  const broken = [
    { ...EPISODE, id: "" },
    { ...EPISODE, runIds: [1] },
    { ...EPISODE, commands: [{ command: "x", exit: "0" }] },
    { ...EPISODE, outcome: { status: "completed", steps: "2", runs: 1 } },
    { ...EPISODE, summary: 3 },
    null,
  ];
  for (const raw of [EPISODE, { ...EPISODE, summary: "s", extra: true }, ...broken]) {
    const schema = v.safeParse(episodeSchemas().episode, raw);
    const quick = parseEpisode(raw);
    expect({ raw, success: quick.success }).toEqual({ raw, success: schema.success });
    if (quick.success && schema.success) expect(quick.output).toEqual(schema.output);
  }
});
