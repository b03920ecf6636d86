/**
 * The control of the guard's end-to-end tables (test/e2e/guard.test.ts): the same bash calls,
 * run by the agent in-process with plugins and the sandbox off (the sandbox would end a
 * background job with its shell), damage every throwaway target. So each spelling the binary
 * refuses is a real destructive command, not one that would have failed anyway. The calls cross
 * into real shells and the targets are files on disk; no process boundary of shiro's is involved.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareTargets, REFUSED, UNREADABLE, works, type Kind } from "../guard-cases.ts";
import { runTurn, useFakeProvider } from "./in-process-agent.ts";
import { useTempHome } from "./temp-home.ts";

const home = useTempHome("shiro-guard-control-");
const fake = useFakeProvider();
let cwd = "";
// The shells are login shells (bash -lc): useTempHome points HOME at the temp home too, as the
// binary's is in the end-to-end tests, so no profile or git config of the machine's user is read.
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), "shiro-guard-control-cwd-"));
  fake().reset();
});
afterEach(() => {
  rmSync(cwd, { recursive: true, force: true });
  expect(fake().violations).toEqual([]);
});

/** Runs every case's command as one response's bash calls, unguarded, and returns the originals of the targets still intact. */
async function survivors(cases: { kind: Kind; command: string }[]): Promise<string[]> {
  const prepared = prepareTargets(cwd, home.dir, cases);
  fake().script({ toolCalls: prepared.map((target) => ({ name: "bash", input: { command: target.command } })) }, { text: "Done." });
  const { events } = await runTurn(fake(), { cwd, protocol: "chat", prompt: "clean everything up", flags: { yolo: true, noPlugins: true, noSandbox: true } });
  expect(events.filter((event) => event.type === "tool-result").length).toBe(prepared.length);
  expect(events.filter((event) => event.type === "tool-denied" || event.type === "tool-error")).toEqual([]);
  expect(events.at(-1)!.type).toBe("done");
  return prepared.filter((target) => target.intact()).map((target) => target.original);
}

describe("the guard's control: unguarded, the same calls damage their targets", () => {
  test(`${REFUSED.length} destructive spellings`, async () => {
    // git itself refuses the ambiguous --forc (force-with-lease or force-if-includes).
    expect(await survivors(REFUSED)).toEqual(["cd T && git push --forc origin HEAD:main"]);
  }, 180_000);

  test("each unreadable spelling whose programs the host has", async () => {
    const present = UNREADABLE.filter(({ needs }) => needs === undefined || works(needs));
    const missing = UNREADABLE.filter((entry) => !present.includes(entry)).map(({ needs }) => needs);
    if (missing.length > 0) console.log(`guard control: left out spellings needing ${[...new Set(missing)].join(", ")} (not on this host)`);
    expect(await survivors(present.map(({ command }) => ({ kind: "dir" as const, command })))).toEqual([]);
  }, 180_000);
});
