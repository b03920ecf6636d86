/**
 * `bun run bench:memory`: how well recall finds what was said. A generated history of several
 * hundred sessions (test/bench/_memory-corpus.ts) is written exactly as the binary writes it
 * (session files through the store writer, episodes built from the run's events by the episode
 * builder and recorded by the episode store), then every question is asked through the `recall`
 * tool the binary registers (createMemoryTools, the same execute the model's call reaches), with
 * limit 10. Scored: recall@1/5/10 and MRR of the answering session, overall and per question
 * class, side by side with a plain BM25 over each session's raw text (every message, tool call
 * and result; lower-cased words, no stemming, no stop words), and the ratio. Also printed: how
 * often the memory injected at session start (selectMemoryForPrompt with the question as the
 * request) holds the answering session, and recall@5 under other session-scoring rules.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateHistory, type BenchQuestion } from "./_memory-corpus.ts";

const home = mkdtempSync(join(tmpdir(), "shiro-bench-memory-"));
process.env.SHIRO_HOME = home;
const ROOT = join(home, "project");
mkdirSync(ROOT, { recursive: true });

const { paths } = await import("../../lib/platform/paths.ts");
const { writeJsonAtomic } = await import("../../lib/state-file/json-file.ts");
const { buildEpisode } = await import("../../lib/store/episode-build.ts");
const { describeToolCalls } = await import("../../lib/tools/call-facts.ts");
const { builtinTools } = await import("../../lib/tools/index.ts");
const { openEpisodes } = await import("../../lib/store/episodes.ts");
const { openMemory, openGlobalMemory } = await import("../../lib/store/memory.ts");
const { createMemoryTools } = await import("../../lib/tools/memory-tools.ts");
const { rankEverything } = await import("../../lib/find/recall-everything.ts");
const { selectMemoryForPrompt } = await import("../../lib/agent/memory-prompt.ts");

const NOW = new Date();
const { sessions, questions } = generateHistory(NOW);

function _write(): void {
  const episodes = openEpisodes(ROOT);
  const describeCalls = describeToolCalls(builtinTools({ complete: async () => "" }), ROOT);
  for (const session of sessions) {
    const at = session.at.toISOString();
    const prompt = session.messages[0]!.role === "user" ? session.messages[0]!.content : "";
    const runId = `${session.id.slice(0, 30)}ffffff`;
    writeJsonAtomic(paths.session(session.id), {
      version: 1,
      id: session.id,
      createdAt: at,
      updatedAt: at,
      cwd: ROOT,
      provider: "openai",
      model: "gpt-5",
      title: prompt.slice(0, 60),
      inputTokens: 0,
      outputTokens: 0,
      notebook: { todos: [] },
      exchanges: [{ query: prompt.slice(0, 200), answer: session.answer, status: "completed", steps: 2, runId, at }],
      messages: session.messages,
    });
    if (session.tools.length === 0) continue;
    let seq = 0;
    const event = (body: Record<string, unknown>) => ({ seq: ++seq, at, ...body });
    const events = [
      ...session.tools.flatMap((tool, i) => [
        event({ type: "tool-call", id: `call_${i}`, name: tool.name, input: tool.input }),
        event({ type: "tool-result", id: `call_${i}`, name: tool.name, output: tool.output, ...(tool.bookkeeping ? { bookkeeping: true } : {}) }),
      ]),
      event({ type: "message", text: session.answer, step: 2 }),
      event({ type: "done", stop: "completed", steps: 2 }),
    ];
    const episode = buildEpisode({
      describe: describeCalls,
      sessionId: session.id,
      cwd: ROOT,
      projectRoot: ROOT,
      runs: [{ runId, prompt, events: events as never }],
    });
    if (episode) episodes.record(episode);
  }
}

/** The session ids of a recall answer's result lines, in order (a digest or note line holds a place too). */
function _rankedSessions(answer: string): string[] {
  const ranked: string[] = [];
  for (const line of answer.split("\n")) {
    const match = /^(?:episode|transcript session) (\S+) /.exec(line);
    if (match) ranked.push(sessions.find((session) => session.id.startsWith(match[1]!))?.id ?? "?");
    else if (/^(?:note|digest) /.test(line)) ranked.push("-");
  }
  return ranked;
}

// The baseline: plain BM25 (k1 1.2, b 0.75) over each session's raw text.
const _words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
function _baseline(): (question: string) => string[] {
  const docs = sessions.map((session) => {
    const texts = session.messages.flatMap((message) =>
      message.role === "user"
        ? [message.content]
        : message.role === "assistant"
          ? message.parts.map((part) => (part.type === "text" ? part.text : part.type === "tool-call" ? `${part.name} ${JSON.stringify(part.input)}` : ""))
          : message.results.map((result) => result.output),
    );
    const tf = new Map<string, number>();
    const words = _words(texts.join("\n"));
    for (const word of words) tf.set(word, (tf.get(word) ?? 0) + 1);
    return { id: session.id, tf, len: words.length };
  });
  const df = new Map<string, number>();
  for (const doc of docs) for (const word of doc.tf.keys()) df.set(word, (df.get(word) ?? 0) + 1);
  const average = docs.reduce((sum, doc) => sum + doc.len, 0) / docs.length;
  return (question) => {
    const terms = [...new Set(_words(question))];
    return docs
      .map((doc) => {
        let score = 0;
        for (const term of terms) {
          const tf = doc.tf.get(term);
          if (!tf) continue;
          const n = df.get(term)!;
          score += Math.log(1 + (docs.length - n + 0.5) / (n + 0.5)) * ((tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.len) / average)));
        }
        return { id: doc.id, score };
      })
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, 10)
      .map((hit) => hit.id);
  };
}

interface _Score {
  at1: number;
  at5: number;
  at10: number;
  mrr: number;
  n: number;
}

function _score(ranks: readonly number[]): _Score {
  const share = (k: number) => ranks.filter((rank) => rank > 0 && rank <= k).length / ranks.length;
  return {
    at1: share(1),
    at5: share(5),
    at10: share(10),
    mrr: ranks.reduce((sum, rank) => sum + (rank > 0 ? 1 / rank : 0), 0) / ranks.length,
    n: ranks.length,
  };
}

const _rankOf = (ranked: readonly string[], answer: string) => ranked.indexOf(answer) + 1;
const _fmt = (score: _Score) => `${score.at1.toFixed(3)}  ${score.at5.toFixed(3)}  ${score.at10.toFixed(3)}  ${score.mrr.toFixed(3)}`;

export async function benchMemory(): Promise<void> {
  const started = performance.now();
  _write();
  const writtenMs = performance.now() - started;
  const project = openMemory(ROOT);
  const episodes = openEpisodes(ROOT);
  const tools = createMemoryTools(project, { global: openGlobalMemory(), episodes, cwd: ROOT });
  const recall = tools.find((tool) => tool.name === "recall")!;
  const ctx = { root: ROOT, signal: new AbortController().signal, emitOutput: () => {}, callId: "bench" };
  const baseline = _baseline();
  const ours: number[] = [];
  const theirs: number[] = [];
  const injected: number[] = [];
  const byClass = new Map<BenchQuestion["cls"], { ours: number[]; theirs: number[] }>();
  const askStart = performance.now();
  for (const question of questions) {
    const answer = await recall.execute({ query: question.question, limit: 10 }, ctx);
    const rank = _rankOf(_rankedSessions(answer), question.answer);
    if (process.env.BENCH_VERBOSE && (rank === 0 || rank > 5) && question.cls === process.env.BENCH_VERBOSE) {
      const said = sessions.find((session) => session.id === question.answer)!;
      console.log(`MISS ${question.question} -> ${question.answer.slice(0, 8)} ${said.at.toISOString().slice(0, 10)}\n${answer}\n`);
      const { openTranscriptIndex } = await import("../../lib/find/transcript-index.ts");
      const hits = openTranscriptIndex().search(question.question, { limit: 2000 });
      const at = hits.findIndex((hit) => hit.segment === `session:${question.answer}`);
      console.log(`  answering passage at ${at}: ${at >= 0 ? `${hits[at]!.id} ${hits[at]!.score.toFixed(2)} (top ${hits[0]!.score.toFixed(2)})` : "-"}`);
    }
    const base = _rankOf(baseline(question.question), question.answer);
    ours.push(rank);
    theirs.push(base);
    const entry = byClass.get(question.cls) ?? { ours: [], theirs: [] };
    entry.ours.push(rank);
    entry.theirs.push(base);
    byClass.set(question.cls, entry);
    const injection = selectMemoryForPrompt({ projectRoot: ROOT, stores: [project], episodes, query: question.question, transcripts: true });
    injected.push(injection.items.some((item) => item.session === question.answer) ? 1 : 0);
  }
  const askMs = (performance.now() - askStart) / questions.length;
  const a = _score(ours);
  const b = _score(theirs);
  console.log(
    `bench:memory: ${sessions.length} sessions, ${questions.length} questions (written in ${(writtenMs / 1000).toFixed(1)} s, ${askMs.toFixed(0)} ms per question)`,
  );
  console.log(`                          R@1    R@5    R@10   MRR`);
  console.log(`  shiro recall            ${_fmt(a)}`);
  console.log(`  plain BM25 (sessions)   ${_fmt(b)}`);
  console.log(`  ratio recall@5          ${(a.at5 / b.at5).toFixed(2)}x`);
  for (const [cls, entry] of byClass) {
    const [x, y] = [_score(entry.ours), _score(entry.theirs)];
    console.log(
      `  ${cls.padEnd(8)} (${String(x.n).padStart(3)})  shiro R@5 ${x.at5.toFixed(3)}  MRR ${x.mrr.toFixed(3)}   BM25 R@5 ${y.at5.toFixed(3)}  MRR ${y.mrr.toFixed(3)}`,
    );
  }
  console.log(`  injected memory holds the answering session: ${(injected.reduce((s, x) => s + x, 0) / injected.length).toFixed(3)}`);
  const rules = [
    { name: "max", rule: { tail: 0, depth: 1 } },
    { name: "best + 0.3 x next two", rule: { tail: 0.3, depth: 3 } },
    { name: "best + 0.5 x next two", rule: { tail: 0.5, depth: 3 } },
    { name: "sum of top 2", rule: { tail: 1, depth: 2 } },
    { name: "sum of top 3", rule: { tail: 1, depth: 3 } },
    { name: "best + 0.7 x next two (default)", rule: { tail: 0.7, depth: 3 } },
    { name: "best + 0.7 x next four", rule: { tail: 0.7, depth: 5 } },
    { name: "best + 0.85 x next two", rule: { tail: 0.85, depth: 3 } },
    { name: "sum of top 5", rule: { tail: 1, depth: 5 } },
    { name: "sum of all", rule: { tail: 1, depth: 1000 } },
  ];
  console.log("  session-scoring rule                 R@5    MRR");
  for (const { name, rule } of rules) {
    const ranks = questions.map((question) => {
      const ranking = rankEverything({ projectRoot: ROOT, cwd: ROOT, project, episodes, rule }, { query: question.question, limit: 10 });
      return _rankOf(
        ranking.groups.map((group) => group.sessionId ?? "-"),
        question.answer,
      );
    });
    const score = _score(ranks);
    console.log(`  ${name.padEnd(36)} ${score.at5.toFixed(3)}  ${score.mrr.toFixed(3)}`);
  }
  const experiments = [
    { name: "as shipped (names 1.5x, date boost 2x)", extra: {} },
    { name: "names and code words weigh 1x", extra: { entityWeight: 1 } },
    { name: "names and code words weigh 2x", extra: { entityWeight: 2 } },
    { name: "no date boost", extra: { windowBoost: 0 } },
    { name: "date boost 3x", extra: { windowBoost: 2 } },
  ];
  console.log("  experiment                           R@5    MRR    when R@5");
  for (const { name, extra } of experiments) {
    const ranks = questions.map((question) => {
      const ranking = rankEverything({ projectRoot: ROOT, cwd: ROOT, project, episodes, ...extra }, { query: question.question, limit: 10 });
      return _rankOf(
        ranking.groups.map((group) => group.sessionId ?? "-"),
        question.answer,
      );
    });
    const score = _score(ranks);
    const when = _score(ranks.filter((_, i) => questions[i]!.cls === "when"));
    console.log(`  ${name.padEnd(36)} ${score.at5.toFixed(3)}  ${score.mrr.toFixed(3)}  ${when.at5.toFixed(3)}`);
  }
  rmSync(home, { recursive: true, force: true });
}

if (import.meta.main) await benchMemory();
