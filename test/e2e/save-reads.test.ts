/**
 * What saving a plain `-p` turn reads in a long history, through the binary (strace): the saved
 * line's short id comes from the register of recent ids (lib/store/short-ids.ts), so neither the
 * sessions nor the runs folder is listed, and the id printed is the shortest prefix
 * unique among every stored session and run, as a listing of both folders tells; the transcript
 * index's manifest is read once, not again by the append under its lock.
 */
import { describe, expect } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { hostTest } from "../host-packages.ts";
import { binaryEnv, ensureBinary, fakeEnv, useE2E } from "./_harness.ts";
import { runTraced, STRACE, writeHistoryHome, traceLines } from "./_traced.ts";
import { shortIdByDefinition } from "../short-id-definition.ts";

const e2e = useE2E();
const SESSIONS = 120;

describe("saving a plain turn in a long history", () => {
  hostTest(
    STRACE,
    "lists neither the sessions nor the runs folder, and prints the short id a listing of both gives",
    async () => {
      writeHistoryHome(e2e.dirs.home, e2e.dirs.cwd, SESSIONS);
      e2e.fake.respond(() => ({ text: "hi" }));
      // The first search builds the transcript index: a turn then reads its manifest, not the folders.
      expect((await e2e.shiro(["search", "login redirect"])).code).toBe(0);
      expect((await e2e.shiro(["-p", "hi"])).code).toBe(0);

      const state = join(e2e.dirs.home, ".shiro-neko");
      const trace = join(e2e.dirs.home, "strace.txt");
      // Without memory: a prompt's memory section may list the folders for its own lines; the save must not.
      const env = binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat"));
      const { code, stderr } = await runTraced(ensureBinary(), ["--no-memory", "-p", "hi"], { cwd: e2e.dirs.cwd, env, out: trace });
      expect(code).toBe(0);
      const lines = traceLines(trace);
      const listed = lines
        .filter((line) => line.includes("O_DIRECTORY"))
        .flatMap((line) => /"([^"]+)"/.exec(line)?.slice(1) ?? [])
        .filter((path) => path.startsWith(state))
        .map((path) => path.slice(state.length + 1));
      expect(listed.filter((path) => path === "sessions" || path === "runs")).toEqual([]);
      // The transcript index's manifest is read once: the saver's append takes that read again while its stamp holds.
      const manifestReads = lines.filter((line) => line.includes('/search/transcripts.index/manifest.json"') && line.includes("O_RDONLY"));
      expect(manifestReads.length).toBe(1);

      const short = /shiro: session (\S+) saved/.exec(stderr)?.[1];
      const stored = ["sessions", "runs"].flatMap((dir) =>
        readdirSync(join(state, dir))
          .filter((name) => name.endsWith(".json"))
          .map((name) => name.slice(0, -".json".length)),
      );
      const saved = stored.find((id) => short !== undefined && id.startsWith(short) && existsSync(join(state, "sessions", `${id}.json`)));
      expect(saved).toBeDefined();
      expect(short).toBe(shortIdByDefinition(saved!, stored));
    },
    240_000,
  );
});
