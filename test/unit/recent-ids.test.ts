/**
 * The register of recent session and run ids (lib/store/short-ids.ts): the end-of-run short id of
 * an id the stores wrote comes from it with the folders out of reach, as the brute-force definition over every stored
 * id gives; it answers only for heads it holds whole (a history stored before it, a dropped
 * generation, generations out of step), and the caller's listing answers the rest.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { uuidv7 } from "../../lib/platform/ids.ts";
import { paths } from "../../lib/platform/paths.ts";
import { openRunLog, type RunSnapshot } from "../../lib/store/runs.ts";
import { createSession } from "../../lib/store/session-record.ts";
import { openSessionWriter } from "../../lib/store/sessions.ts";
import { ROTATE_BYTES, listSessionAndRunIds, noteRecentId, recentIdsSharing, shortIdAmong } from "../../lib/store/short-ids.ts";
import { useTempHome } from "./temp-home.ts";
import { shortIdByDefinition } from "../short-id-definition.ts";

const START = Date.parse("2026-12-01T20:00:00Z");

/** A session and its run, written by the stores, made at `at`. */
function storeSessionAndRun(at: number): [string, string] {
  const session = createSession({ cwd: "/p", provider: "openai", model: "m" }, new Date(at));
  const writer = openSessionWriter(session);
  writer.save();
  writer.close();
  const runId = uuidv7(at);
  const snapshot: RunSnapshot = {
    version: 1,
    id: runId,
    sessionId: session.id,
    cwd: "/p",
    provider: "openai",
    model: "m",
    protocol: "openai-chat",
    agent: "build",
    prompt: "hi",
    status: "completed",
    pid: process.pid,
    startedAt: new Date(at).toISOString(),
    steps: 0,
    options: {},
  };
  openRunLog(snapshot, { fresh: true });
  return [session.id, runId];
}

const head = (id: string) => id.slice(0, 8);

describe("the register of recent ids", () => {
  useTempHome("shiro-recent-ids-");

  test("ids the stores wrote are shortened from the register alone, as over every stored id", async () => {
    // Two bursts a minute and a half apart: 40 sessions and runs each, a few ms between them.
    const all = [0, 90_000].flatMap((offset) => Array.from({ length: 40 }, (_, i) => storeSessionAndRun(START + offset + i * 3)).flat());
    expect(existsSync(paths.recentIds())).toBe(true);
    // The folders out of reach: what answers is the register.
    renameSync(paths.sessionsDir(), `${paths.sessionsDir()}-away`);
    renameSync(paths.runsDir(), `${paths.runsDir()}-away`);
    for (const id of [all[0]!, all[41]!, all[79]!, all[120]!]) {
      const listed = await listSessionAndRunIds(id);
      expect(listed.ids.length).toBe(all.filter((other) => head(other) === head(id)).length);
      expect(shortIdAmong(id, listed, [])).toBe(shortIdByDefinition(id, all));
    }
  });

  test("a register begun over a stored history answers only for heads newer than every id it found", async () => {
    const old = Array.from({ length: 5 }, (_, i) => uuidv7(START + i));
    mkdirSync(paths.sessionsDir(), { recursive: true });
    for (const id of old) writeFileSync(join(paths.sessionsDir(), `${id}.json`), "{}");
    const [session, run] = storeSessionAndRun(START + 200_000);
    expect(recentIdsSharing(head(old[0]!))).toBeUndefined();
    expect(recentIdsSharing(head(session))!.sort()).toEqual([session, run].sort());
    // The older head is listed from the folders, and shortened among what is there.
    const alongside = uuidv7(START + 2);
    writeFileSync(join(paths.sessionsDir(), `${alongside}.json`), "{}");
    const listed = await listSessionAndRunIds(old[1]!);
    expect(shortIdAmong(old[1]!, listed, [])).toBe(shortIdByDefinition(old[1]!, [...old, alongside]));
  });

  test("past its size a generation becomes the old one; a dropped generation's heads are no longer answered", () => {
    // The first two generations' header is 23 bytes and an id's line 37: this many ids cross the size with the last one.
    const fill = Math.floor((ROTATE_BYTES - 23) / 37) + 1;
    const spans = [fill, fill, 20].map((count, span) => Array.from({ length: count }, (_, i) => uuidv7(START + span * 200_000 + i)));
    const heads = spans.map((ids) => head(ids[0]!));
    for (const id of spans[0]!) noteRecentId(id);
    // Rotated once: the first span is the old generation, still answered whole.
    expect([_header(paths.recentIdsOld()), _header(paths.recentIds())]).toEqual(["shiro recent ids 1 1 0", "shiro recent ids 1 2 0"]);
    expect(recentIdsSharing(heads[0]!)).toEqual(spans[0]);
    for (const id of spans[1]!) noteRecentId(id);
    // Rotated again: the first span's generation is gone, and its head with it; the floor says so.
    expect(_header(paths.recentIds())).toBe(`shiro recent ids 1 3 ${START + fill - 1}`);
    expect(recentIdsSharing(heads[0]!)).toBeUndefined();
    expect(recentIdsSharing(heads[1]!)).toEqual(spans[1]);
    for (const id of spans[2]!) noteRecentId(id);
    expect(recentIdsSharing(heads[1]!)).toEqual(spans[1]);
    expect(recentIdsSharing(heads[2]!)).toEqual(spans[2]);
    for (const file of [paths.recentIds(), paths.recentIdsOld()]) expect(Buffer.byteLength(readFileSync(file, "utf8"))).toBeLessThan(ROTATE_BYTES + 64);
  });

  test("generations out of step, or no register, answer nothing", () => {
    expect(recentIdsSharing(head(uuidv7(START)))).toBeUndefined();
    const ids = Array.from({ length: Math.ceil(ROTATE_BYTES / 37) + 5 }, (_, i) => uuidv7(START + i));
    for (const id of ids) noteRecentId(id);
    noteRecentId(uuidv7(START + 10));
    expect(recentIdsSharing(head(ids[0]!))).toBeDefined();
    rmSync(paths.recentIdsOld());
    expect(recentIdsSharing(head(ids[0]!))).toBeUndefined();
    writeFileSync(paths.recentIds(), `not a register\n${ids[0]}\n`);
    expect(recentIdsSharing(head(ids[0]!))).toBeUndefined();
  });
});

function _header(path: string): string {
  return readFileSync(path, "utf8").split("\n")[0]!;
}
