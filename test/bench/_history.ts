/**
 * A long history, written by the binary's own stores (lib/store/), so every file has the format
 * and the redaction a real run leaves: per session one session file (its writer, lease and all),
 * two runs each with a snapshot and an event log, two episodes in the project's episode file
 * (with the store's cap and monthly digests), and project notes. The state folder is the current
 * `SHIRO_HOME`; callers set it first.
 *
 * Episodes: all but the last are laid out in one write in the format the store had before its
 * log (the oldest folded into digests, as that store left them); the last goes through `record`,
 * which moves them into the log (the upgrade every long-lived home makes once) and applies the
 * real caps.
 */
import type { AgentEvent } from "../../lib/events.ts";
import type { Message } from "../../lib/messages.ts";
import { paths } from "../../lib/platform/paths.ts";
import { EPISODE_CAP, foldIntoDigests, openEpisodes, type Episode } from "../../lib/store/episodes.ts";
import { writeJsonAtomic } from "../../lib/state-file/json-file.ts";
import { openMemory } from "../../lib/store/memory.ts";
import { openRunLog, type RunSnapshot } from "../../lib/store/runs.ts";
import { createSession } from "../../lib/store/session-record.ts";
import { openSessionWriter } from "../../lib/store/sessions.ts";
import { createWordGenerator } from "./_corpus.ts";

export interface HistoryShape {
  sessions: number;
  /** Runs (and episodes) per session. */
  runsPerSession: number;
  eventsPerRun: number;
  notes: number;
}

export const YEAR_OF_HISTORY: HistoryShape = { sessions: 5_000, runsPerSession: 2, eventsPerRun: 10, notes: 300 };

const _MEMORY_KINDS = ["fact", "decision", "gotcha", "command"] as const;

/** Writes `shape` for the project at `root` into the state folder. */
export function writeHistory(root: string, shape: HistoryShape, seed = 7): void {
  const gen = createWordGenerator(seed, 4_000);
  const base = Date.UTC(2025, 11, 1) - shape.sessions * shape.runsPerSession * 3_600_000;
  const episodes: Episode[] = [];
  for (let s = 0; s < shape.sessions; s++) {
    const started = new Date(base + s * shape.runsPerSession * 3_600_000);
    const session = createSession({ cwd: root, provider: "openai", model: "fake-model" }, started);
    for (let r = 0; r < shape.runsPerSession; r++) {
      const at = new Date(started.getTime() + r * 3_600_000).toISOString();
      const prompt = gen.sentence(12);
      const runId = `${session.id.slice(0, 24)}${(s * shape.runsPerSession + r).toString(16).padStart(12, "0")}`;
      const snapshot: RunSnapshot = {
        version: 1,
        id: runId,
        sessionId: session.id,
        cwd: root,
        provider: "openai",
        model: "fake-model",
        protocol: "openai-chat",
        agent: "build",
        prompt,
        status: "running",
        pid: process.pid,
        startedAt: at,
        steps: 0,
        options: {},
      };
      const log = openRunLog(snapshot, { fresh: true });
      const messages: Message[] = [{ role: "user", content: prompt }];
      log.append({
        type: "run-start",
        runId,
        sessionId: session.id,
        cwd: root,
        provider: "openai",
        model: "fake-model",
        agent: "build",
        protocol: "openai-chat",
      });
      for (let e = 1; e < shape.eventsPerRun - 1; e += 3) {
        const id = `c${e}`;
        const path = gen.path();
        const output = gen.sentence(60);
        log.append({ type: "tool-call", id, name: "read_file", input: { path } } as AgentEvent);
        log.append({ type: "tool-result", id, name: "read_file", output } as AgentEvent);
        messages.push({ role: "assistant", parts: [{ type: "tool-call", id, name: "read_file", input: { path } }] });
        messages.push({ role: "tool", results: [{ type: "tool-result", callId: id, name: "read_file", output }] });
        if (e + 2 < shape.eventsPerRun - 1) log.append({ type: "message", text: gen.sentence(20), step: e } as AgentEvent);
      }
      const answer = gen.sentence(40);
      log.append({ type: "message", text: answer, step: shape.eventsPerRun } as AgentEvent);
      messages.push({ role: "assistant", parts: [{ type: "text", text: answer }] });
      log.update({ status: "completed", endedAt: at, steps: 3, usage: { inputTokens: 900, outputTokens: 120 } });
      session.messages.push(...messages);
      session.exchanges.push({ query: prompt, answer, status: "completed", steps: 3, runId, at });
      episodes.push({
        id: `e-${runId}`,
        sessionId: session.id,
        runIds: [runId],
        startedAt: at,
        endedAt: at,
        prompts: [prompt],
        filesRead: [gen.path(), gen.path()],
        filesChanged: [gen.path()],
        commands: [{ command: `bun test ${gen.path()}`, exit: gen.next() < 0.2 ? 1 : 0 }],
        outcome: { status: "completed", steps: 3, runs: 1, costUsd: 0.01 },
        answer,
        spans: [],
      } as Episode);
    }
    const writer = openSessionWriter(session);
    writer.save();
    writer.close();
  }
  const kept = Math.min(EPISODE_CAP, episodes.length - 1);
  const folded = episodes.slice(0, episodes.length - 1 - kept);
  const last = episodes.pop()!;
  writeJsonAtomic(paths.legacyProjectEpisodes(root), {
    version: 1,
    project: root,
    episodes: episodes.slice(folded.length),
    digests: foldIntoDigests([], folded),
  });
  openEpisodes(root).record(last);
  const memory = openMemory(root, { maxEntries: shape.notes });
  for (let n = 0; n < shape.notes; n++) memory.remember(_MEMORY_KINDS[n % _MEMORY_KINDS.length]!, `${gen.sentence(14)} (${n})`);
}
