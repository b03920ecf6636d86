/**
 * Benchmark: ranked recall over 300 notes and 10,000 episodes on disk, through the recall index
 * (read the index file, check it is current, score the query's postings; and again with the index
 * already read, as a REPL's later recalls find it), against a linear scan
 * of the same entries (read both stores, tokenise every entry, score it with the same BM25).
 * Prints medians, their ratio, the one-off cost of building the index, and the index's size on
 * disk beside the stores it covers. Then, with 1,000 sessions of this project saved beside them,
 * the `recall` tool's default answer (one ranking over notes, episodes and session passages,
 * lib/find/recall-everything.ts) against the notes-and-episodes recall that was the default
 * before it (store/memory-recall.ts recallMemory), cold and warm, and the transcript index's size.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_QUERIES, createWordGenerator, scanHits, timeQueries } from "./_corpus.ts";

const NOTES = 300;
const EPISODES = 10_000;
const SESSIONS = 1_000;
const RUNS = 15;
const ROOT = "/work/bench-project";

const home = mkdtempSync(join(tmpdir(), "shiro-bench-recall-"));
process.env.SHIRO_HOME = home;
const { paths } = await import("../../lib/platform/paths.ts");
const { openMemory } = await import("../../lib/store/memory.ts");
const { openEpisodes } = await import("../../lib/store/episodes.ts");
const { openMemoryIndex } = await import("../../lib/store/memory-index.ts");
const { recallMemory } = await import("../../lib/store/memory-recall.ts");
const { recallEverything } = await import("../../lib/find/recall-everything.ts");
const { recallTranscriptLines } = await import("../../lib/find/recall-transcripts.ts");
const { writeJsonAtomic } = await import("../../lib/state-file/json-file.ts");

function _seed(): void {
  const gen = createWordGenerator(42, 2_000);
  const base = Date.UTC(2025, 0, 1);
  const notes = Array.from({ length: NOTES }, (_, i) => ({
    id: `n-${i}`,
    kind: "fact",
    text: gen.sentence(14),
    createdAt: new Date(base + i * 3_600_000).toISOString(),
    hits: 0,
  }));
  const episodes = Array.from({ length: EPISODES }, (_, i) => {
    const at = new Date(base + i * 600_000).toISOString();
    return {
      id: `e-${i}`,
      sessionId: `0190${i.toString(16).padStart(4, "0")}-0000-7000-8000-000000000000`,
      runIds: [`r-${i}`],
      startedAt: at,
      endedAt: at,
      prompts: [gen.sentence(12)],
      filesRead: [gen.path(), gen.path()],
      filesChanged: [gen.path()],
      commands: [{ command: `bun test ${gen.path()}`, exit: gen.next() < 0.2 ? 1 : 0 }],
      outcome: { status: "completed", steps: 4, runs: 1, costUsd: 0.01 },
      answer: gen.sentence(40),
      spans: [],
    };
  });
  mkdirSync(paths.memoryDir(), { recursive: true });
  writeFileSync(paths.projectMemory(ROOT), JSON.stringify({ version: 1, project: ROOT, entries: notes }, null, 2));
  writeFileSync(paths.legacyProjectEpisodes(ROOT), JSON.stringify({ version: 1, project: ROOT, episodes, digests: [] }, null, 2));
}

/** 1,000 saved sessions of the project: a long prompt (12 paragraphs), a tool call and result, an answer. */
function _seedSessions(): void {
  const gen = createWordGenerator(7, 2_000);
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < SESSIONS; i++) {
    const at = new Date(base + i * 3_600_000).toISOString();
    const id = `0191${i.toString(16).padStart(4, "0")}-0000-7000-8000-000000000000`;
    const prompt = Array.from({ length: 12 }, () => gen.sentence(30)).join("\n\n");
    writeJsonAtomic(paths.session(id), {
      version: 1,
      id,
      createdAt: at,
      updatedAt: at,
      cwd: ROOT,
      provider: "openai",
      model: "gpt-5",
      title: "bench",
      inputTokens: 0,
      outputTokens: 0,
      notebook: { todos: [] },
      exchanges: [{ query: "q", answer: "a", status: "completed", steps: 2, runId: `r-${i}`, at }],
      messages: [
        { role: "user", content: prompt },
        { role: "assistant", parts: [{ type: "tool-call", id: "c1", name: "read_file", input: { path: gen.path() } }] },
        { role: "tool", results: [{ type: "tool-result", callId: "c1", name: "read_file", output: gen.sentence(120) }] },
        { role: "assistant", parts: [{ type: "text", text: gen.sentence(40) }] },
      ],
    });
  }
}

const _recallContext = () => ({ projectRoot: ROOT, cwd: ROOT, project: openMemory(ROOT), episodes: openEpisodes(ROOT) });
/** A fresh process's recall: the index files' times are moved, so they are parsed again. */
function _touchIndexes(): void {
  const at = new Date(Date.UTC(2030, 0, 1) + ++_touches * 1000);
  utimesSync(join(paths.memoryIndex(ROOT), "manifest.json"), at, at);
  utimesSync(join(paths.transcriptIndex(), "manifest.json"), at, at);
}

const _sources = () => ({ projectRoot: ROOT, project: openMemory(ROOT), episodes: openEpisodes(ROOT) });

function _indexed(query: string): number {
  return openMemoryIndex(_sources()).index.search(query, { limit: 8 }).length;
}

let _touches = 0;
/** A fresh process's recall: the index file's time is moved, so it is parsed again. */
function _indexedCold(query: string): number {
  const at = new Date(Date.UTC(2030, 0, 1) + ++_touches * 1000);
  utimesSync(join(paths.memoryIndex(ROOT), "manifest.json"), at, at);
  return _indexed(query);
}

/** The same ranking with no index: every entry read and tokenised for every query. */
function _scan(query: string): number {
  const sources = _sources();
  const texts = [
    ...sources.project.list().map((note) => note.text),
    ...sources.episodes
      .read()
      .episodes.map((e) => [...e.prompts, ...e.filesRead, ...e.filesChanged, ...e.commands.map((c) => c.command), e.answer, ...e.spans].join("\n")),
  ];
  return scanHits(texts, query, 8);
}

/** Median milliseconds of each of `runs` in turn, one call of each per query. */
function _interleaved(runs: ((query: string) => number)[], count: number): number[] {
  const samples = runs.map((): number[] => []);
  for (let i = 0; i < count; i++) {
    const query = BENCH_QUERIES[i % BENCH_QUERIES.length]!;
    runs.forEach((run, at) => {
      const start = performance.now();
      run(query);
      samples[at]!.push(performance.now() - start);
    });
  }
  return samples.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]!);
}

export async function benchRecall(): Promise<void> {
  _seed();
  const buildStart = performance.now();
  _indexed(BENCH_QUERIES[0]!);
  const build = performance.now() - buildStart;
  for (const query of BENCH_QUERIES) if (_indexed(query) !== _scan(query)) throw new Error(`index and scan disagree on "${query}"`);
  const indexed = await timeQueries(_indexedCold, RUNS);
  const warm = await timeQueries(_indexed, RUNS);
  const scan = await timeQueries(_scan, 5);
  // A file's size, or a folder's (an index folder: its manifest and segments).
  const size = (path: string): number =>
    statSync(path).isDirectory() ? readdirSync(path).reduce((sum, name) => sum + size(join(path, name)), 0) : statSync(path).size;
  const stores = size(paths.projectMemory(ROOT)) + size(paths.legacyProjectEpisodes(ROOT));
  const index = size(paths.memoryIndex(ROOT));
  console.log(`recall: ${NOTES} notes and ${EPISODES} episodes (${(stores / 1e6).toFixed(1)} MB of stores), median per query`);
  console.log(`  linear scan (read, tokenise, score all)  ${scan.toFixed(1)} ms  (1.00x)`);
  console.log(`  through the index, read from disk        ${indexed.toFixed(1)} ms  (${(scan / indexed).toFixed(1)}x faster)`);
  console.log(`  through the index, already read (REPL)   ${warm.toFixed(1)} ms  (${(scan / warm).toFixed(1)}x faster)`);
  console.log(`  building the index once                  ${build.toFixed(1)} ms`);
  console.log(`  index on disk                            ${(index / 1e6).toFixed(2)} MB  (${((index / stores) * 100).toFixed(0)}% of the stores)`);

  _seedSessions();
  const everythingBuildStart = performance.now();
  recallEverything(_recallContext(), { query: BENCH_QUERIES[0]! });
  const everythingBuild = performance.now() - everythingBuildStart;
  const before = (query: string) => (_touchIndexes(), recallMemory(_recallContext(), { query }).length);
  const after = (query: string) => (_touchIndexes(), recallEverything(_recallContext(), { query }).length);
  // What reached as far before: kinds with "transcript", the notes-and-episodes answer and then the transcript lines.
  const reach = (query: string) => recallMemory(_recallContext(), { query }).length + recallTranscriptLines(query, ROOT, 8).length;
  // Interleaved, so a busy machine slows every variant alike.
  const [beforeCold, afterCold, reachCold] = _interleaved([before, after, (query) => (_touchIndexes(), reach(query))], RUNS) as [number, number, number];
  const [beforeWarm, afterWarm, reachWarm] = _interleaved(
    [(query) => recallMemory(_recallContext(), { query }).length, (query) => recallEverything(_recallContext(), { query }).length, reach],
    RUNS,
  ) as [number, number, number];
  const sessionsSize = readdirSync(paths.sessionsDir()).reduce((sum, name) => sum + size(join(paths.sessionsDir(), name)), 0);
  console.log(`recall's default answer, with ${SESSIONS} sessions (${(sessionsSize / 1e6).toFixed(1)} MB) beside them, median per query`);
  console.log(`  notes and episodes only (the old default) ${beforeCold.toFixed(1)} ms cold, ${beforeWarm.toFixed(1)} ms warm`);
  console.log(
    `  one ranking with session passages         ${afterCold.toFixed(1)} ms cold (${(afterCold / beforeCold).toFixed(2)}x), ${afterWarm.toFixed(1)} ms warm (${(afterWarm / beforeWarm).toFixed(2)}x)`,
  );
  console.log(
    `  before, with kinds "transcript" (same reach) ${reachCold.toFixed(1)} ms cold (one ranking: ${(afterCold / reachCold).toFixed(2)}x), ${reachWarm.toFixed(1)} ms warm (${(afterWarm / reachWarm).toFixed(2)}x)`,
  );
  console.log(`  building the transcript index once        ${everythingBuild.toFixed(1)} ms`);
  console.log(
    `  transcript index on disk                  ${(size(paths.transcriptIndex()) / 1e6).toFixed(2)} MB  (${((size(paths.transcriptIndex()) / sessionsSize) * 100).toFixed(0)}% of the sessions)`,
  );
  if (!process.env.BENCH_KEEP) rmSync(home, { recursive: true, force: true });
  else console.log(`kept ${home}`);
}

if (import.meta.main) await benchRecall();
