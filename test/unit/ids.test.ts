/**
 * Id abbreviation (lib/platform/ids.ts): the shortest prefix unique among what the consuming
 * command accepts, never ending on a dash, and the same answer as a brute-force check over every
 * other id; memory ids (lib/store/memory-lookup.ts) are unique over notes, episodes and sessions.
 */
import { describe, expect, test } from "bun:test";
import { createAbbreviator, shortestUniquePrefix, uuidv7 } from "../../lib/platform/ids.ts";
import { memoryIds } from "../../lib/store/memory-lookup.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import { listSessionAndRunIds, shortIdAmong, shortRunId, shortSessionId, shortSessionIds } from "../../lib/store/short-ids.ts";
import { useTempHome } from "./temp-home.ts";
import { shortIdByDefinition } from "../short-id-definition.ts";

describe("createAbbreviator", () => {
  const table: { name: string; id: string; accepted: string[]; want: string }[] = [
    { name: "alone: the minimum", id: "0195aaaa-0000-7000-8000-000000000001", accepted: [], want: "0195aaaa" },
    { name: "alone and listed", id: "0195aaaa-0000-7000-8000-000000000001", accepted: ["0195aaaa-0000-7000-8000-000000000001"], want: "0195aaaa" },
    {
      name: "same minute: past the dash",
      id: "0195aaaa-1000-7000-8000-000000000001",
      accepted: ["0195aaaa-2000-7000-8000-000000000001"],
      want: "0195aaaa-1",
    },
    {
      name: "same second: several characters in",
      id: "0195aaaa-1234-7000-8000-000000000001",
      accepted: ["0195aaaa-1235-7000-8000-000000000001", "0195aaaa-1299-7000-8000-000000000001"],
      want: "0195aaaa-1234",
    },
    {
      name: "differing right after the second dash",
      id: "0195aaaa-1234-7000-8000-000000000001",
      accepted: ["0195aaaa-1234-8000-8000-000000000001"],
      want: "0195aaaa-1234-7",
    },
    {
      name: "twins differ only at the end",
      id: "0195aaaa-0000-7000-8000-000000000001",
      accepted: ["0195aaaa-0000-7000-8000-000000000002"],
      want: "0195aaaa-0000-7000-8000-000000000001",
    },
    { name: "not itself in the set", id: "0195aaab-0000-7000-8000-000000000001", accepted: ["0195aaaa-0000-7000-8000-000000000001"], want: "0195aaab" },
  ];
  for (const row of table) {
    test(row.name, () => {
      expect(createAbbreviator(row.accepted)(row.id)).toBe(row.want);
      expect(shortestUniquePrefix(row.id, row.accepted)).toBe(row.want);
    });
  }

  test("agrees with the brute-force definition over 300 ids made within ten seconds", () => {
    const start = Date.parse("2026-12-01T20:00:00Z");
    const ids = Array.from({ length: 300 }, (_, i) => uuidv7(start + Math.floor((i * 10_000) / 300)));
    const abbreviate = createAbbreviator(ids);
    const shown = ids.map(abbreviate);
    expect(shown).toEqual(ids.map((id) => shortIdByDefinition(id, ids)));
    expect(new Set(shown).size).toBe(ids.length);
    for (const [i, short] of shown.entries()) expect(ids.filter((id) => id.startsWith(short))).toEqual([ids[i]!]);
    // The case the abbreviation exists for: a fixed 8 characters would have told few of them apart.
    expect(new Set(ids.map((id) => id.slice(0, 8))).size).toBeLessThan(3);
  });
});

describe("memoryIds", () => {
  test("an episode's session is abbreviated past a note and an episode made in the same minute", () => {
    const note = "0195aaaa-1111-7000-8000-000000000001";
    const episode = { id: "0195aaaa-2222-7000-8000-000000000001", sessionId: "0195aaaa-1112-7000-8000-000000000001" };
    const abbreviate = createAbbreviator(memoryIds([note], [episode]));
    expect([note, episode.id, episode.sessionId].map(abbreviate)).toEqual(["0195aaaa-1111", "0195aaaa-2", "0195aaaa-1112"]);
  });
});

describe("stored session and run ids (lib/store/short-ids.ts)", () => {
  useTempHome("shiro-short-ids-");

  /**
   * Stores `perBurst` sessions and as many runs (and one lease) in each of three bursts a day
   * apart, `spacing` ms between ids: each burst shares its first 8 characters within, none across.
   */
  function storeBursts(perBurst: number, spacing: number): { bursts: number[]; sessions: string[]; runs: string[]; all: string[] } {
    const bursts = [0, 86_400_000, 2 * 86_400_000].map((offset) => Date.parse("2026-12-01T20:00:00Z") + offset);
    const sessions = bursts.flatMap((start) => Array.from({ length: perBurst }, (_, i) => uuidv7(start + i * spacing)));
    const runs = bursts.flatMap((start) => Array.from({ length: perBurst }, (_, i) => uuidv7(start + i * spacing)));
    mkdirSync(paths.sessionsDir(), { recursive: true });
    mkdirSync(paths.runsDir(), { recursive: true });
    for (const id of sessions) writeFileSync(join(paths.sessionsDir(), `${id}.json`), "{}");
    for (const id of runs) writeFileSync(join(paths.runsDir(), `${id}.json`), "{}");
    writeFileSync(join(paths.sessionsDir(), `${sessions[0]}.lease`), "{}");
    return { bursts, sessions, runs, all: [...sessions, ...runs] };
  }

  test("agree with the brute-force definition over every stored session and run, though only those sharing 8 characters are sorted", () => {
    const { sessions, runs, all } = storeBursts(40, 7);
    const asked = [sessions[3]!, runs[50]!, sessions[119]!];
    expect(shortSessionIds(asked)).toEqual(asked.map((id) => shortIdByDefinition(id, all)));
    expect([shortSessionId(sessions[3]!), shortRunId(runs[50]!)]).toEqual([shortIdByDefinition(sessions[3]!, all), shortIdByDefinition(runs[50]!, all)]);
    expect(shortSessionIds([])).toEqual([]);
  });

  test("the end-of-run listing keeps only the ids sharing the saved id's head, and shortens to what the full listing gives", async () => {
    const { bursts, sessions, runs, all } = storeBursts(300, 3);
    // Made here after the listing: a new session and its run in the same millisecond as a stored one.
    const made = [uuidv7(bursts[1]! + 30), uuidv7(bursts[1]! + 30)];
    for (const id of [sessions[0]!, sessions[450]!, runs[899]!, made[0]!]) {
      const listed = await listSessionAndRunIds(id);
      // Bounded by the burst the id belongs to, not by the 1,800 stored ids.
      expect(listed.ids.length).toBeLessThanOrEqual(600);
      expect(listed.ids.every((other) => other.startsWith(id.slice(0, 8)))).toBe(true);
      expect(shortIdAmong(id, listed, made)).toBe(shortIdByDefinition(id, [...all, ...made]));
    }
    // A listing taken for another head still gives the right answer (the folders are read again).
    expect(shortIdAmong(sessions[450]!, await listSessionAndRunIds(sessions[0]!), [])).toBe(shortIdByDefinition(sessions[450]!, all));
    expect((await listSessionAndRunIds(sessions[0]!)).ids).not.toContain(`${sessions[0]}.lease`);
  });
});
