/**
 * Output is never lost, and nothing fails silently, through the built binary: a reader that
 * starts late still gets every byte, a reader that leaves ends the process quietly, a failing
 * stdout is exit 1 with one line, start-up notices reach `--json` readers as events, a killed
 * run leaves a session `-c` resumes, and state-file failures are sentences.
 */
import { describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, binaryEnv, fakeEnv, parseEventLines, userTextsOf, useE2E, withoutHostNotices } from "./_harness.ts";

const e2e = useE2E();

/** About 200 KiB of answer: 4,000 numbered lines, so a lost chunk shows as a gap. */
const BIG = `${Array.from({ length: 4000 }, (_, i) => `line ${String(i).padStart(5, "0")} ${"x".repeat(40)}`).join("\n")}\nEND`;

interface PipedResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `dist/shiro args` with its stdout piped into `reader` (a shell command reading stdin, its
 * output captured) and returns shiro's own exit code. Bounded by timeoutMs.
 */
function runPiped(args: string[], reader: string, options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<PipedResult> {
  return new Promise((resolve) => {
    const script = `"$0" "$@" | { ${reader}; }; exit "\${PIPESTATUS[0]}"`;
    const child = spawn("bash", ["-c", script, BINARY, ...args], {
      cwd: e2e.dirs.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: binaryEnv(e2e.dirs.home, { ...fakeEnv(e2e.fake.baseURL, "chat"), ...options.env }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** Runs dist/shiro with stdout opened on `path` (e.g. /dev/full). */
function runWithStdoutTo(path: string, args: string[]): Promise<PipedResult> {
  return new Promise((resolve) => {
    const fd = openSync(path, "w");
    const child = spawn(BINARY, args, {
      cwd: e2e.dirs.cwd,
      stdio: ["ignore", fd, "pipe"],
      env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")),
    });
    closeSync(fd);
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout: "", stderr });
    });
  });
}

const SLOW_READER = "sleep 1.5; cat";

/**
 * A reader that starts once the run is over: it waits on a FIFO the test opens when the run's
 * event log (which shiro appends as it goes) holds its `done`, so by then shiro has handed every
 * byte to its stdout, more than the pipe holds, and no one has read any of it yet. (shiro queues
 * what the pipe cannot take and goes on; a writer that held the turn until the reader came would
 * never log done, and the wait below says so after 20 s, with what the log held.)
 *
 * The log is polled, not watched: a directory watch can fold the append of `done` into the event
 * of the line before it, read before `done` landed, and then never fire again.
 */
async function readerAfterRun(runId: string): Promise<{ reader: string; opened: Promise<void> }> {
  const gate = join(e2e.dirs.cwd, "reader-gate.fifo");
  expect(spawnSync("mkfifo", [gate]).status).toBe(0);
  const log = join(e2e.dirs.home, ".shiro-neko", "events", `${runId}.jsonl`);
  const logged = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
  const opened = new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const text = logged();
      if (text.includes('"type":"done"')) {
        clearInterval(poll);
        // Writing blocks until the reader opens its end, so it goes through a child, not this process.
        spawn("sh", ["-c", 'echo go > "$0"', gate], { stdio: "ignore" }).on("close", () => resolve());
      } else if (Date.now() - started > 20_000) {
        clearInterval(poll);
        const types = [...text.matchAll(/"type":"([a-z-]+)"/g)].map((match) => match[1]);
        reject(new Error(`no done event in ${log} within 20 s; it logged: ${types.join(", ") || "nothing"}`));
      }
    }, 20);
  });
  return { reader: `read -r _ < '${gate}'; cat`, opened };
}

/** One headless run whose answer is BIG; returns its run and session ids. */
async function bigRun(): Promise<{ runId: string; sessionId: string }> {
  e2e.fake.script({ text: BIG });
  const result = await e2e.shiro(["-p", "say a lot", "--json"]);
  expect(result.code).toBe(0);
  const start = parseEventLines(result.stdout)[0]!;
  return { runId: String(start.runId), sessionId: String(start.sessionId) };
}

describe("a reader that starts late receives every byte", () => {
  test("-p in text mode, read only after the run is over", async () => {
    const runId = "0193ab2c-0000-7000-8000-0000000000d1";
    e2e.fake.script({ text: BIG });
    const { reader, opened } = await readerAfterRun(runId);
    const [result] = await Promise.all([runPiped(["-p", "say a lot"], reader, { env: { SHIRO_RUN_ID: runId } }), opened]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${BIG}\n`);
  });

  test("-p --json, read only after the run is over: every line parses and the stream ends with done", async () => {
    const runId = "0193ab2c-0000-7000-8000-0000000000d2";
    e2e.fake.script({ text: BIG });
    const { reader, opened } = await readerAfterRun(runId);
    const [result] = await Promise.all([runPiped(["-p", "say a lot", "--json"], reader, { env: { SHIRO_RUN_ID: runId } }), opened]);
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith("\n")).toBe(true);
    const events = parseEventLines(result.stdout);
    expect(events.at(-1)!.type).toBe("done");
    expect(
      events
        .filter((event) => event.type === "text")
        .map((event) => event.text)
        .join(""),
    ).toBe(BIG);
    expect(events.find((event) => event.type === "message")!.text).toBe(BIG);
  });

  // These only read the state folder, leaving no event that says they are done: the reader starts 1.5 s late.
  test("runs events --json, read 1.5 s late", async () => {
    const { runId } = await bigRun();
    const result = await runPiped(["runs", "events", runId, "--json"], SLOW_READER);
    expect(result.code).toBe(0);
    const events = withoutHostNotices(parseEventLines(result.stdout));
    expect(events.map((event) => event.type)).toEqual(["run-start", "notice", "message", "done"]);
    expect(events[2]!.text).toBe(BIG);
  });

  test("sessions show --json, read 1.5 s late", async () => {
    const { sessionId } = await bigRun();
    const result = await runPiped(["sessions", "show", sessionId, "--json"], SLOW_READER);
    expect(result.code).toBe(0);
    const shown = JSON.parse(result.stdout) as { id: string; exchanges: { answer: string }[] };
    expect(shown.id).toBe(sessionId);
    expect(shown.exchanges[0]!.answer).toBe(BIG);
  });
});

describe("a reader that goes away ends the process quietly", () => {
  const cases: [string, string[]][] = [
    ["-p text", ["-p", "say a lot"]],
    ["-p --json", ["-p", "say a lot", "--json"]],
  ];
  for (const [name, args] of cases) {
    test(`${name} | head -c 100: exit 0, no error line`, async () => {
      e2e.fake.script({ text: BIG });
      const result = await runPiped(args, "head -c 100 >/dev/null");
      expect(result.code).toBe(0);
      expect(result.stderr).not.toMatch(/EPIPE|cannot write|\[error\]/);
    });
  }

  test("a run whose reader left stops there (aborted, its question saved) instead of working on for nobody", async () => {
    const runId = "0193ab2c-0000-7000-8000-0000000000e1";
    e2e.fake.script({ text: BIG, toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { stallMs: 15_000, text: "nobody reads this" });
    const result = await runPiped(["-p", "say a lot", "--json"], "head -c 100 >/dev/null", { env: { SHIRO_RUN_ID: runId } });
    expect(result.code).toBe(0);
    const done = await e2e.shiro(["runs", "events", runId, "--json", "--type", "done"]);
    expect(parseEventLines(done.stdout).map((event) => event.stop)).toEqual(["aborted"]);
    const sessions = JSON.parse((await e2e.shiro(["sessions", "--json"])).stdout) as { title: string }[];
    expect(sessions.map((session) => session.title)).toEqual(["say a lot"]);
  });

  test("runs events --json and sessions show --json | head -c 10: exit 0, stderr empty", async () => {
    const { runId, sessionId } = await bigRun();
    for (const args of [
      ["runs", "events", runId, "--json"],
      ["sessions", "show", sessionId, "--json"],
    ]) {
      const result = await runPiped(args, "head -c 10 >/dev/null");
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: "" });
    }
  });
});

describe("any other write failure is exit 1 with one line", () => {
  test("stdout on /dev/full, for a run and for every listing", async () => {
    const { runId, sessionId } = await bigRun();
    e2e.fake.script({ text: "short answer" });
    const line = "shiro: cannot write to stdout: the disk is full (ENOSPC)\n";
    for (const args of [
      ["runs", "events", runId, "--json"],
      ["sessions", "show", sessionId, "--json"],
      ["sessions", "--json"],
      ["runs", "list", "--json"],
      ["--version"],
    ]) {
      const result = await runWithStdoutTo("/dev/full", args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 1, stderr: line });
    }
    const run = await runWithStdoutTo("/dev/full", ["-p", "hello", "--json"]);
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n").filter((text) => text.includes("cannot write"))).toEqual([line.trimEnd()]);
  });
});

describe("a plugin name that does not exist is a usage error", () => {
  const VALID = "Valid plugins: guard, secrets, protect, time, bell, format";
  const spellings: [unknown[], string][] = [
    [["gaurd"], 'lists "gaurd", which is not a plugin (did you mean "guard"?).'],
    [["Guard"], 'lists "Guard", which is not a plugin (did you mean "guard"?).'],
    [[" guard"], 'lists " guard", which is not a plugin (did you mean "guard"?).'],
    [["guard", "secret"], 'lists "secret", which is not a plugin (did you mean "secrets"?).'],
    [["guard", "nope"], 'lists "nope", which is not a plugin.'],
    [[""], 'lists "", which is not a plugin.'],
  ];
  for (const [plugins, wording] of spellings) {
    test(`plugins ${JSON.stringify(plugins)}: exit 2, one line naming the valid ones, no request`, async () => {
      e2e.writeConfig({ plugins });
      const result = await e2e.shiro(["-p", "hi"]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      const configPath = join(e2e.dirs.home, ".shiro-neko", "config.json");
      expect(result.stderr).toBe(`shiro: ${configPath}: "plugins" ${wording} ${VALID}\n`);
      expect(e2e.fake.requests.length).toBe(0);
    });
  }

  test("config set refuses a misspelt plugin (exit 2) and leaves the file as it was; valid names run", async () => {
    e2e.writeConfig({ plugins: ["guard"] });
    const configPath = join(e2e.dirs.home, ".shiro-neko", "config.json");
    const before = readFileSync(configPath, "utf8");
    const refused = await e2e.shiro(["config", "set", "plugins", '["gaurd"]']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(VALID);
    expect(readFileSync(configPath, "utf8")).toBe(before);
    e2e.writeConfig({ plugins: ["guard", "bell"] });
    e2e.fake.script({ text: "fine" });
    const ok = await e2e.shiro(["-p", "hi"]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe("fine\n");
  });
});

describe("start-up diagnostics", () => {
  test("reach --json readers as notice events of the run, and its log", async () => {
    mkdirSync(join(e2e.dirs.home, ".shiro-neko", "skills", "broken"), { recursive: true });
    writeFileSync(join(e2e.dirs.home, ".shiro-neko", "skills", "broken", "SKILL.md"), "no front matter here\n");
    e2e.fake.script({ text: "ok" });
    const result = await e2e.shiro(["-p", "hi", "--json"]);
    expect(result.code).toBe(0);
    const events = parseEventLines(result.stdout);
    expect(events[0]!.type).toBe("run-start");
    const notices = events.filter((event) => event.type === "notice").map((event) => String(event.text));
    expect(notices.some((text) => text.startsWith("headless withholds tools that need approval"))).toBe(true);
    expect(notices.some((text) => text.startsWith("skill ") && text.includes("broken"))).toBe(true);
    expect(events.at(-1)!.type).toBe("done");
    const logged = await e2e.shiro(["runs", "events", String(events[0]!.runId), "--json", "--type", "notice"]);
    expect(parseEventLines(logged.stdout).map((event) => event.text)).toEqual(notices);
  });

  test("text mode shows them on stderr as [notice] lines", async () => {
    e2e.fake.script({ text: "ok" });
    const result = await e2e.shiro(["-p", "hi"]);
    expect(result.stdout).toBe("ok\n");
    expect(result.stderr).toContain("[notice] headless withholds tools that need approval");
  });
});

describe("a run killed in its first moments", () => {
  test("SIGKILL while the first request is in flight leaves a session -c resumes, question included", async () => {
    // The responder runs as the request arrives: that is when the kill goes out.
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    e2e.fake.respond(() => {
      arrived();
      return { stallMs: 20_000, text: "never sent" };
    });
    const child = spawn(BINARY, ["-p", "remember the walrus", "--json"], {
      cwd: e2e.dirs.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")),
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    const closed = new Promise((resolve) => child.on("close", resolve));
    await Promise.race([inFlight, closed]);
    child.kill("SIGKILL");
    await closed;
    const firstSession = parseEventLines(stdout)[0]!.sessionId;

    e2e.fake.reset();
    e2e.fake.script({ text: "the walrus" });
    const resumed = await e2e.shiro(["-p", "what was it?", "-c", "--json"]);
    expect(resumed.code).toBe(0);
    expect(parseEventLines(resumed.stdout)[0]!.sessionId).toBe(firstSession);
    expect(userTextsOf(e2e.fake.requests[0]!)).toEqual(["remember the walrus", "what was it?"]);
  });

  test("SIGKILL as soon as run-start is printed still leaves that session for -c", async () => {
    e2e.fake.script({ stallMs: 20_000, text: "never sent" });
    const child = spawn(BINARY, ["-p", "first", "--json"], {
      cwd: e2e.dirs.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")),
    });
    const sessionId = await new Promise<string>((resolve) => {
      let buffered = "";
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.stdout.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        if (!buffered.includes("\n")) return;
        child.kill("SIGKILL");
        clearTimeout(timer);
        resolve(String(JSON.parse(buffered.split("\n")[0]!).sessionId));
      });
    });
    await new Promise((resolve) => child.on("close", resolve));
    e2e.fake.reset();
    e2e.fake.script({ text: "resumed" });
    const resumed = await e2e.shiro(["-p", "again", "-c", "--json"]);
    expect(resumed.code).toBe(0);
    expect(parseEventLines(resumed.stdout)[0]!.sessionId).toBe(sessionId);
  });
});

describe("OS errors are sentences naming the file", () => {
  test("a file where the sessions folder should be: exit 1, one line, nothing changed", async () => {
    const state = join(e2e.dirs.home, ".shiro-neko");
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, "sessions"), "not a folder\n");
    const result = await e2e.shiro(["-p", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^shiro: cannot create the lock file ${state}/sessions/[0-9a-f-]+\\.lease\\.lock: a file stands where a folder is expected on that path \\((ENOTDIR|EEXIST)\\); no state file was changed\\n$`,
      ),
    );
    expect(readFileSync(join(state, "sessions"), "utf8")).toBe("not a folder\n");
    expect(e2e.fake.requests.length).toBe(0);
  });

  test("a 300-character folder name in SHIRO_HOME: exit 1, one line naming the file and why", async () => {
    const home = join(e2e.dirs.home, "h".repeat(300));
    const result = await e2e.shiro(["-p", "hi"], { env: { SHIRO_HOME: home } });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 1,
      stderr: `shiro: ${home}/.shiro-neko/config.json: cannot be read: the name is too long for the file system (ENAMETOOLONG)\n`,
    });
  });

  test("a full disk under the run log: the run says which file, and that its lines are intact", async () => {
    const runId = "0193ab2c-0000-7000-8000-000000000001";
    const events = join(e2e.dirs.home, ".shiro-neko", "events");
    mkdirSync(events, { recursive: true });
    symlinkSync("/dev/full", join(events, `${runId}.jsonl`));
    e2e.fake.script({ text: "ok" });
    const result = await e2e.shiro(["-p", "hi"], { env: { SHIRO_RUN_ID: runId } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`shiro: cannot append to ${events}/${runId}.jsonl: the disk is full (ENOSPC); the lines already in it are intact\n`);
  });
});
