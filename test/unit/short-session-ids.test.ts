/**
 * `shortSessionIds` (lib/store/short-ids.ts) over both folders, as the definition over every stored
 * id gives (test/short-id-definition.ts): a session and a run made in one millisecond, a run copied
 * in by hand, and names that are not records (a lease, a temp file) that must not lengthen an id;
 * and `shortSessionIdsAmong` over a listing taken earlier on the thread pool (`listSessionAndRunNames`,
 * what `shiro search` lists while it ranks) gives the same ids.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import { listSessionAndRunNames, shortSessionIds, shortSessionIdsAmong } from "../../lib/store/short-ids.ts";
import { useTempHome } from "./temp-home.ts";
import { shortIdByDefinition } from "../short-id-definition.ts";

describe("shortSessionIds", () => {
  useTempHome("shiro-short-session-ids-");

  test("each id is the shortest prefix unique among the .json records of both folders", async () => {
    const sessions = ["0193ab2c-1111-7000-8000-000000000001", "0193ab2c-1111-7000-8000-000000000002", "0193ff00-0000-7000-8000-000000000001"];
    // A run made in the session's millisecond, and one copied in by hand: both count.
    const runs = ["0193ab2c-1111-7000-9000-000000000001", "0193ab2c-2222-7000-8000-000000000009"];
    mkdirSync(paths.sessionsDir(), { recursive: true });
    mkdirSync(paths.runsDir(), { recursive: true });
    for (const id of sessions) writeFileSync(join(paths.sessionsDir(), `${id}.json`), "{}");
    for (const id of runs) writeFileSync(join(paths.runsDir(), `${id}.json`), "{}");
    // Not records: they share the long prefix but must not lengthen any id.
    writeFileSync(join(paths.sessionsDir(), "0193ab2c-1111-7000-8000-000000000001.lease"), "");
    writeFileSync(join(paths.runsDir(), "0193ab2c-2222-7000-8000-00000000000a.json.123.tmp"), "");
    const stored = [...sessions, ...runs];
    const asked = [sessions[0]!, sessions[2]!, runs[0]!, runs[1]!];
    expect(shortSessionIds(asked)).toEqual(asked.map((id) => shortIdByDefinition(id, stored)));
    expect(shortSessionIds(asked)).toEqual(["0193ab2c-1111-7000-8000-000000000001", "0193ff00", "0193ab2c-1111-7000-9", "0193ab2c-2"]);
    expect(shortSessionIds([])).toEqual([]);
    expect(shortSessionIdsAmong(asked, await listSessionAndRunNames())).toEqual(shortSessionIds(asked));
  });

  test("a listing of missing folders lists nothing", async () => {
    expect(await listSessionAndRunNames()).toEqual([[], []]);
  });
});
