/**
 * Benchmark: `shiro search` over 1,000 saved sessions and 50,000 logged run events, through the
 * transcript index, against a linear scan of the same files (read every session and event log,
 * tokenise every message and event, score with the same BM25), all in one run:
 * - cold: no index yet, so the search builds it (the first search after an upgrade);
 * - from disk: the index exists and is read and checked against the folders (a new process);
 * - warm: the index already read (a REPL's later `/search`).
 * Prints medians and each one as a ratio of the scan, plus the index's size beside the stores.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_QUERIES, createWordGenerator, scanHits, timeQueries } from "./_corpus.ts";

const SESSIONS = 1_000;
const EVENTS = 50_000;
const RUNS = 9;
const LIMIT = 20;

const home = mkdtempSync(join(tmpdir(), "shiro-bench-search-"));
process.env.SHIRO_HOME = home;
const { paths } = await import("../../lib/platform/paths.ts");
const { searchEverything } = await import("../../lib/find/search.ts");

const _id = (prefix: string, i: number) => `${prefix}${i.toString(16).padStart(4, "0")}-0000-7000-8000-000000000000`;

function _seed(): void {
  const gen = createWordGenerator(7, 4_000);
  const base = Date.UTC(2026, 0, 1);
  mkdirSync(paths.sessionsDir(), { recursive: true });
  mkdirSync(paths.eventsDir(), { recursive: true });
  mkdirSync(paths.runsDir(), { recursive: true });
  for (let i = 0; i < SESSIONS; i++) {
    const at = new Date(base + i * 600_000).toISOString();
    const messages: unknown[] = [];
    for (let turn = 0; turn < 3; turn++) {
      messages.push({ role: "user", content: gen.sentence(14) });
      messages.push({
        role: "assistant",
        parts: [
          { type: "text", text: gen.sentence(10) },
          { type: "tool-call", id: `c${turn}`, name: "read_file", input: { path: gen.path() } },
        ],
      });
      messages.push({ role: "tool", results: [{ type: "tool-result", callId: `c${turn}`, name: "read_file", output: gen.sentence(80) }] });
      messages.push({ role: "assistant", parts: [{ type: "text", text: gen.sentence(40) }] });
    }
    const session = {
      version: 1,
      id: _id("0190", i),
      createdAt: at,
      updatedAt: at,
      cwd: "/work/bench-project",
      provider: "openai",
      model: "gpt-5",
      title: "t",
      inputTokens: 0,
      outputTokens: 0,
      notebook: { todos: [] },
      exchanges: [],
      messages,
    };
    writeFileSync(paths.session(session.id), JSON.stringify(session));
  }
  const perRun = EVENTS / SESSIONS;
  for (let i = 0; i < SESSIONS; i++) {
    const runId = _id("0191", i);
    const at = new Date(base + i * 600_000).toISOString();
    const lines: string[] = [];
    for (let seq = 1; seq <= perRun; seq++) {
      const kind = seq % 3;
      const event =
        kind === 0
          ? { type: "message", text: gen.sentence(30), step: seq }
          : kind === 1
            ? { type: "tool-call", id: `c${seq}`, name: "bash", input: { command: `bun test ${gen.path()}` } }
            : { type: "tool-result", id: `c${seq - 1}`, name: "bash", output: gen.sentence(60) };
      lines.push(JSON.stringify({ seq, at, ...event }));
    }
    writeFileSync(paths.events(runId), `${lines.join("\n")}\n`);
    writeFileSync(
      paths.run(runId),
      JSON.stringify({
        version: 1,
        id: runId,
        sessionId: _id("0190", i),
        cwd: "/work/bench-project",
        provider: "openai",
        model: "gpt-5",
        protocol: "openai-chat",
        agent: "build",
        prompt: gen.sentence(12),
        status: "completed",
        pid: 1,
        startedAt: at,
        steps: 1,
        options: {},
      }),
    );
  }
}

const _search = async (query: string) =>
  (await searchEverything({ query, sources: ["sessions", "runs"], memoryRoot: "/work/bench-project", limit: LIMIT })).length;

let _touches = 0;
function _fromDisk(query: string): Promise<number> {
  const at = new Date(Date.UTC(2030, 0, 1) + ++_touches * 1000);
  utimesSync(join(paths.transcriptIndex(), "manifest.json"), at, at);
  return _search(query);
}

/** Every session message and event read, tokenised and scored for every query. */
function _scan(query: string): number {
  const texts: string[] = [];
  for (const name of readdirSync(paths.sessionsDir())) {
    const session = JSON.parse(readFileSync(join(paths.sessionsDir(), name), "utf8"));
    for (const message of session.messages) {
      if (message.role === "user") texts.push(message.content);
      else if (message.role === "assistant")
        for (const part of message.parts) texts.push(part.type === "text" ? part.text : `${part.name} ${JSON.stringify(part.input)}`);
      else for (const result of message.results) texts.push(result.output);
    }
  }
  for (const name of readdirSync(paths.eventsDir())) {
    for (const line of readFileSync(join(paths.eventsDir(), name), "utf8").split("\n")) {
      if (!line) continue;
      const event = JSON.parse(line);
      texts.push(event.text ?? event.output ?? `${event.name} ${JSON.stringify(event.input)}`);
    }
  }
  return scanHits(texts, query, LIMIT);
}

export async function benchSearch(): Promise<void> {
  _seed();
  const scan = await timeQueries(_scan, 3);
  const coldStart = performance.now();
  await _search(BENCH_QUERIES[0]!);
  const cold = performance.now() - coldStart;
  for (const query of BENCH_QUERIES) if ((await _search(query)) !== _scan(query)) throw new Error(`index and scan disagree on "${query}"`);
  const fromDisk = await timeQueries(_fromDisk, RUNS);
  const warm = await timeQueries(_search, RUNS);
  const folder = (dir: string) => readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
  const stores = folder(paths.sessionsDir()) + folder(paths.eventsDir()) + folder(paths.runsDir());
  const index = folder(paths.transcriptIndex());
  const ratio = (ms: number) => (scan / ms >= 1 ? `${(scan / ms).toFixed(1)}x faster` : `${(ms / scan).toFixed(1)}x slower`);
  console.log(`search: ${SESSIONS} sessions and ${EVENTS} run events (${(stores / 1e6).toFixed(1)} MB of stores), median per query`);
  console.log(`  linear scan (read, tokenise, score all)   ${scan.toFixed(1)} ms  (1.00x)`);
  console.log(`  cold: no index, the search builds it      ${cold.toFixed(1)} ms  (${ratio(cold)})`);
  console.log(`  through the index, read from disk         ${fromDisk.toFixed(1)} ms  (${ratio(fromDisk)})`);
  console.log(`  through the index, already read (REPL)    ${warm.toFixed(1)} ms  (${ratio(warm)})`);
  console.log(`  index on disk                             ${(index / 1e6).toFixed(2)} MB  (${((index / stores) * 100).toFixed(0)}% of the stores)`);
  rmSync(home, { recursive: true, force: true });
}

if (import.meta.main) await benchSearch();
