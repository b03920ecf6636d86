/**
 * `bun run bench:scale`: what a year of history costs every prompt. A history of 5,000 sessions
 * (10,000 runs and episodes, 100,000 logged events, 300 notes) is written by the stores'
 * own code (./_history.ts) into a temp home, once per run; then dist/shiro is driven, interleaved
 * round by round, in that home, in an empty home (emptied before each run) and in a home of 10 sessions, against the fake
 * provider on 127.0.0.1 (which notes when each request arrives: as its handler starts, before the
 * body is read and checked, as the floor's bare server notes its own). Printed, each with the absolute
 * medians beside the ratio and PASS/MISS against issue 24's targets:
 * - exec → first model request of `-p`, and the whole plain turn, full home / empty home;
 * - a turn that calls `recall`, full home / an empty-home plain turn;
 * - `shiro search`, full home / empty home;
 * - saving: a plain turn's time after its first request (the answer streamed, then the session,
 *   run, episode and indexes written) in the full home / in the 10-session home;
 * - index bytes as a share of the store bytes they cover (full home);
 * - empty home: exec → first request against a bare compiled binary that sends one request, and
 *   the child processes a plain answer starts (strace; the column is skipped when it is missing);
 * - the garbage collections a plain turn and a turn calling `recall` start in the full home;
 * - with no bar, the same ratios against the 10-session home: what the history's size costs, apart
 *   from what having any history costs; and the recall turn against the empty home's recall turn
 *   (the bar divides it by a plain turn, which an empty home's recall turn already exceeds).
 * Homes live on /dev/shm where it exists: the generation's fsyncs would take minutes on a disk, and
 * every home sits on the same file system, so ratios compare work, not the disk.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryEnv, ensureBinary, fakeEnv } from "../e2e/_harness.ts";
import { startFakeProvider, type FakeStep, type RecordedRequest } from "../fakes/provider.ts";
import { median } from "./baseline.ts";

/**
 * SCALE_ROUNDS and SCALE_SESSIONS shrink the run for a quick look; the targets are for the defaults.
 * SCALE_BINARY measures another build (an older commit's dist/shiro, for a before/after).
 */
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 7);
const SESSIONS = process.env.SCALE_SESSIONS ?? "5000";
const BINARY = process.env.SCALE_BINARY || ensureBinary();
const RECALL_PROMPT = "use recall for the login redirect";
const SEARCH_QUERY = "login redirect broken";

interface Target {
  label: string;
  empty: string;
  full: string;
  ratio: number;
  bar: number;
}

const base = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "shiro-bench-scale-"));
const project = join(base, "project");
const homes = { empty: join(base, "empty"), ten: join(base, "ten"), full: join(base, "full") };

/** Writes the 5,000- and the 10-session histories; resolves with the seconds it took. */
async function _generate(): Promise<number> {
  mkdirSync(join(project, ".git"), { recursive: true });
  for (const home of Object.values(homes)) mkdirSync(home, { recursive: true });
  const started = performance.now();
  const script = `
    const [home, sessions] = process.argv.slice(2);
    process.env.SHIRO_HOME = home;
    const { writeHistory, YEAR_OF_HISTORY } = await import(${JSON.stringify(join(import.meta.dir, "_history.ts"))});
    writeHistory(${JSON.stringify(project)}, { ...YEAR_OF_HISTORY, sessions: Number(sessions) });`;
  writeFileSync(join(base, "generate.ts"), script);
  // Two processes at once: the machine has two cores, and each store keeps its own state.
  const children = [
    [homes.full, SESSIONS],
    [homes.ten, "10"],
  ].map(
    ([home, sessions]) =>
      new Promise<void>((resolvePromise, reject) => {
        const child = spawn(process.execPath, [join(base, "generate.ts"), home!, sessions!], { stdio: ["ignore", "inherit", "inherit"] });
        child.on("close", (code) => (code === 0 ? resolvePromise() : reject(new Error(`generating ${sessions} sessions failed (exit ${code})`))));
      }),
  );
  await Promise.all(children);
  return (performance.now() - started) / 1000;
}

let arrived = 0;
// Noted as the request's handler starts, before the fake reads and checks its body: where the floor's server notes its request.
const fake = await startFakeProvider({ onArrival: (method) => void (method === "POST" && (arrived ||= performance.now())) });
fake.respond((request: RecordedRequest): FakeStep => {
  const messages = (request.body?.messages ?? []) as { role: string; content?: unknown }[];
  const last = messages.at(-1);
  if (last?.role === "tool") return { text: "Found it." };
  if (JSON.stringify(last?.content ?? "").includes(RECALL_PROMPT)) return { toolCalls: [{ name: "recall", input: { query: SEARCH_QUERY } }] };
  return { text: "hi" };
});

interface RunTimes {
  first: number;
  whole: number;
  code: number | null;
  /** The startup trace's wall and processor time by phase (SHIRO_TRACE_STARTUP=1), when the run printed one. */
  phases?: Record<string, number>;
  cpu?: Record<string, number>;
  main?: Record<string, number>;
}

function _run(home: string, args: string[]): Promise<RunTimes> {
  if (home === homes.empty) _empty(home);
  return new Promise((resolvePromise) => {
    arrived = 0;
    const start = performance.now();
    const env = binaryEnv(home, { ...fakeEnv(fake.baseURL, "chat"), SHIRO_TRACE_STARTUP: "1" });
    const child = spawn(BINARY, args, { cwd: project, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      const line = stderr.split("\n").find((text) => text.includes('"startup-trace"'));
      const trace = line ? (JSON.parse(line) as { phases: Record<string, number>; cpu?: Record<string, number>; main?: Record<string, number> }) : undefined;
      resolvePromise({
        first: arrived ? arrived - start : Number.NaN,
        whole: performance.now() - start,
        code,
        phases: trace?.phases,
        cpu: trace?.cpu,
        main: trace?.main,
      });
    });
  });
}

/**
 * The empty home holds nothing when a run starts: it is emptied before each (outside the time
 * measured), so its turns are a first run's, not those of a home its earlier rounds filled.
 */
function _empty(home: string): void {
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
}

/** How many garbage collections the runtime started in a run (BUN_JSC_logGC prints one `START` line each). */
function _collections(home: string, args: string[]): Promise<number> {
  return new Promise((resolvePromise) => {
    const env = binaryEnv(home, { ...fakeEnv(fake.baseURL, "chat"), BUN_JSC_logGC: "1" });
    const child = spawn(BINARY, args, { cwd: project, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", () => {
      clearTimeout(timer);
      resolvePromise(stderr.split("\n").filter((line) => /^\[GC<[^>]*>: START /.test(line)).length);
    });
  });
}

/** A bare compiled binary that POSTs once to $FLOOR_URL and exits; a server notes when the request arrives. */
async function _floor(): Promise<number[]> {
  const source = join(base, "floor.ts");
  writeFileSync(source, 'await fetch(process.env.FLOOR_URL!, { method: "POST", body: "{}" });\n');
  const build = spawnSync(process.execPath, ["build", "--compile", source, "--outfile", join(base, "floor")], { encoding: "utf8", timeout: 120_000 });
  if (build.status !== 0) throw new Error(`building the floor binary failed:\n${build.stderr}`);
  let at = 0;
  const server = createServer((_request, response) => {
    at = performance.now();
    response.end("{}");
  });
  await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  const port = (server.address() as { port: number }).port;
  const times: number[] = [];
  for (let i = 0; i < ROUNDS * 2; i++) {
    at = 0;
    const start = performance.now();
    await new Promise<void>((resolvePromise) => {
      const child = spawn(join(base, "floor"), [], { env: { FLOOR_URL: `http://127.0.0.1:${port}/` }, stdio: "ignore" });
      child.on("close", () => resolvePromise());
    });
    times.push(at - start);
  }
  server.close();
  return times;
}

/** Child processes a plain `-p` answer starts in the empty home; a reason instead when strace is missing or cannot trace. */
async function _children(): Promise<number | string> {
  if (spawnSync("strace", ["-V"]).status !== 0) return "strace is not installed";
  const out = join(base, "strace.txt");
  _empty(homes.empty);
  const env = binaryEnv(homes.empty, fakeEnv(fake.baseURL, "chat"));
  // Not spawnSync: the fake provider answers from this process's event loop.
  await new Promise<void>((resolvePromise) => {
    const child = spawn("strace", ["-f", "-qq", "-e", "trace=execve", "-o", out, BINARY, "-p", "hi"], { cwd: project, env, stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", () => resolvePromise(clearTimeout(timer)));
  });
  const lines = existsSync(out) ? readFileSync(out, "utf8").split("\n") : [];
  const execs = lines.filter((line) => line.includes("execve(") && / = 0$/.test(line)).length;
  return execs === 0 ? "strace saw no exec (ptrace refused?)" : execs - 1;
}

function _bytes(dir: string, keep: (name: string) => boolean): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const name of readdirSync(dir, { recursive: true }).map(String)) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isFile() && keep(name)) total += stat.size;
  }
  return total;
}

const _isIndex = (name: string) => /\.(index|vectors)\.json$/.test(name) || /\.index\//.test(name) || name.startsWith("search/");

const ms = (value: number) => `${value.toFixed(1)} ms`;

export async function benchScale(): Promise<void> {
  try {
    const binary = BINARY;
    const generation = await _generate();
    console.log(`scale: history written in ${generation.toFixed(1)} s by the stores (${base})`);
    // The first run and search in each home build what later runs reuse: measured apart.
    const coldTurn = await _run(homes.full, ["-p", "hi"]);
    const coldSearch = await _run(homes.full, ["search", SEARCH_QUERY]);
    for (const home of [homes.empty, homes.ten]) {
      await _run(home, ["-p", "hi"]);
      await _run(home, ["search", SEARCH_QUERY]);
    }
    const samples: Record<string, number[]> = {};
    const add = (key: string, value: number) => (samples[key] ??= []).push(value);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, home] of Object.entries(homes)) {
        const plain = await _run(home, ["-p", "hi"]);
        add(`${name}.first`, plain.first);
        add(`${name}.whole`, plain.whole);
        add(`${name}.tail`, plain.whole - plain.first);
        for (const [phase, value] of Object.entries(plain.phases ?? {})) add(`${name}.phase.${phase}`, value);
        for (const [phase, value] of Object.entries(plain.cpu ?? {})) add(`${name}.cpu.${phase}`, value);
        for (const [phase, value] of Object.entries(plain.main ?? {})) add(`${name}.main.${phase}`, value);
        add(`${name}.recall`, (await _run(home, ["-p", RECALL_PROMPT])).whole);
        add(`${name}.search`, (await _run(home, ["search", SEARCH_QUERY])).whole);
      }
    }
    // Apart from the timed rounds (the log costs a little): a collection in a turn is milliseconds of pause and a core's marking.
    const collections: Record<string, number> = {};
    for (const [name, args] of [
      ["plain", ["-p", "hi"]],
      ["recall", ["-p", RECALL_PROMPT]],
    ] as const)
      for (let round = 0; round < ROUNDS; round++) collections[name] = (collections[name] ?? 0) + (await _collections(homes.full, [...args]));
    const m = (key: string) => median(samples[key]!);
    const floor = median(await _floor());
    const children = await _children();
    const state = join(homes.full, ".shiro-neko");
    const indexBytes = _bytes(state, _isIndex);
    const storeBytes = ["sessions", "runs", "events", "memory"].reduce((sum, dir) => sum + _bytes(join(state, dir), (name) => !_isIndex(name)), 0);
    const targets: Target[] = [
      { label: "exec → first request", empty: ms(m("empty.first")), full: ms(m("full.first")), ratio: m("full.first") / m("empty.first"), bar: 1.1 },
      { label: "whole plain turn", empty: ms(m("empty.whole")), full: ms(m("full.whole")), ratio: m("full.whole") / m("empty.whole"), bar: 1.15 },
      {
        label: "turn calling recall (/ empty plain)",
        empty: ms(m("empty.whole")),
        full: ms(m("full.recall")),
        ratio: m("full.recall") / m("empty.whole"),
        bar: 1.5,
      },
      { label: "shiro search", empty: ms(m("empty.search")), full: ms(m("full.search")), ratio: m("full.search") / m("empty.search"), bar: 3 },
      {
        label: "saving (turn after 1st request)",
        empty: `${ms(m("ten.tail"))} (10th)`,
        full: `${ms(m("full.tail"))} (${SESSIONS}th)`,
        ratio: m("full.tail") / m("ten.tail"),
        bar: 1.2,
      },
      { label: "empty home: first request / floor", empty: ms(floor), full: ms(m("empty.first")), ratio: m("empty.first") / floor, bar: 3 },
    ];
    console.log(`scale: ${ROUNDS} rounds, interleaved; medians; ${binary}`);
    console.log(`  ${"case".padEnd(38)}${"baseline".padStart(22)}${"measured".padStart(24)}${"ratio".padStart(9)}${"target".padStart(9)}`);
    for (const t of targets) {
      const verdict = t.ratio <= t.bar ? "PASS" : "MISS";
      console.log(
        `  ${t.label.padEnd(38)}${t.empty.padStart(22)}${t.full.padStart(24)}${`${t.ratio.toFixed(2)}x`.padStart(9)}${`≤ ${t.bar}x`.padStart(9)}  ${verdict}`,
      );
    }
    const share = indexBytes / storeBytes;
    console.log(
      `  ${"index bytes / store bytes".padEnd(38)}${`${(storeBytes / 1e6).toFixed(1)} MB`.padStart(22)}${`${(indexBytes / 1e6).toFixed(1)} MB`.padStart(24)}${`${(share * 100).toFixed(0)}%`.padStart(9)}${"≤ 35%".padStart(9)}  ${share <= 0.35 ? "PASS" : "MISS"}`,
    );
    if (typeof children === "string") console.log(`  child processes of a plain answer: skipped, ${children}`);
    else
      console.log(
        `  ${"child processes of a plain answer".padEnd(38)}${"".padStart(22)}${String(children).padStart(24)}${"".padStart(9)}${"0".padStart(9)}  ${children === 0 ? "PASS" : "MISS"}`,
      );
    // No bar: how much of each ratio is the history's size, not having one at all.
    const young = (label: string, key: string, over = key) =>
      `${label} ${ms(m(`ten.${over}`))} → ${ms(m(`full.${key}`))} (${(m(`full.${key}`) / m(`ten.${over}`)).toFixed(2)}x)`;
    console.log(
      `  against the 10-session home instead (no bar): ${[young("first request", "first"), young("whole plain turn", "whole"), young("recall turn / plain", "recall", "whole"), young("recall turn", "recall"), young("search", "search")].join(", ")}`,
    );
    // No bar: a recall turn against a recall turn, where the bar above divides by a plain one.
    console.log(
      `  the recall turn against the empty home's recall turn (no bar): ${ms(m("empty.recall"))} → ${ms(m("full.recall"))} (${(m("full.recall") / m("empty.recall")).toFixed(2)}x); the empty home's recall turn is ${(m("empty.recall") / m("empty.whole")).toFixed(2)}x its plain turn`,
    );
    for (const [kind, title] of [
      ["phase", "wall"],
      ["cpu", "processor"],
      ["main", "main-thread processor"],
    ] as const) {
      const names = Object.keys(samples).filter((key) => key.startsWith(`full.${kind}.`));
      if (names.length === 0) continue;
      const split = names
        .map((key) => key.slice(`full.${kind}.`.length))
        .map((phase) => {
          const empty = samples[`empty.${kind}.${phase}`];
          return `${phase} ${empty ? median(empty).toFixed(1) : "?"} → ${median(samples[`full.${kind}.${phase}`]!).toFixed(1)}`;
        });
      console.log(`  first request by phase, ${title} ms, empty → full home: ${split.join(", ")}`);
    }
    console.log(
      `  garbage collections per turn in the full home (BUN_JSC_logGC, ${ROUNDS} each): plain ${(collections.plain! / ROUNDS).toFixed(1)}, calling recall ${(collections.recall! / ROUNDS).toFixed(1)}`,
    );
    console.log(`  one-offs in the full home: first turn ${ms(coldTurn.whole)}, first search ${ms(coldSearch.whole)} (indexes built)`);
    const failed = Object.entries(samples).filter(([, values]) => values.some((value) => Number.isNaN(value)));
    if (failed.length > 0) console.log(`  note: some runs sent no request: ${failed.map(([key]) => key).join(", ")}`);
  } finally {
    await fake.stop();
    rmSync(base, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchScale();
