/**
 * Runs a child process in its own process group and can end the whole tree it starts.
 *
 * On POSIX the child is spawned `detached`, which makes it the leader of a new process group;
 * killing `-pid` then reaches every descendant that did not leave the group on purpose. On Windows
 * `taskkill /T /F` ends the tree. Output of both pipes is drained concurrently, decoded as UTF-8
 * and kept within a character budget, so a chatty command cannot exhaust memory.
 */
import { spawn, type ChildProcess } from "node:child_process";

/** How long a tree gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/** After the leader exits, how long descendants may keep the pipes open before we stop reading. */
const _DRAIN_MS = 300;

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** The tree is killed when this elapses; the result then has `timedOut`. */
  timeoutMs: number;
  /** Aborting kills the tree; the result then has `aborted`. */
  signal?: AbortSignal;
  /** Every decoded chunk, as it arrives. */
  onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Characters kept per stream, and which end of the output survives. */
  keep?: { chars: number; end: "head" | "tail" };
  /** Pass the command line to cmd.exe as is (Windows only). */
  verbatimArgs?: boolean;
  /** Written to the child's stdin, which is then closed (hooks read their JSON there); default: no stdin. */
  stdin?: string;
  graceMs?: number;
}

/** What one stream produced: the kept text and how many characters did not fit. */
export interface CapturedText {
  text: string;
  dropped: number;
}

export interface RunResult {
  /** Exit code, or null when a signal ended the process. */
  code: number | null;
  /** The signal that ended the process, if one did. */
  exitSignal: string | null;
  stdout: CapturedText;
  stderr: CapturedText;
  timedOut: boolean;
  aborted: boolean;
  /** The last signal we sent to the tree (timeout or abort), if any. */
  sentSignal?: string;
}

/**
 * Spawns `file args` and resolves once it has exited and its output is drained. It kills the
 * tree on timeout or abort and awaits that too. Rejects only when the process cannot be started
 * (the error keeps its `code`, e.g. ENOENT).
 */
export function runProcessTree(file: string, args: string[], options: RunOptions): Promise<RunResult> {
  const keep = options.keep ?? { chars: 30_000, end: "tail" as const };
  const stdout = _createCapture(keep.chars, keep.end);
  const stderr = _createCapture(keep.chars, keep.end);
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
      windowsHide: true,
      windowsVerbatimArguments: options.verbatimArgs,
    });
  } catch (error) {
    return Promise.reject(error);
  }

  if (options.stdin !== undefined && child.stdin) {
    // A child that never reads, or exits first, closes the pipe: EPIPE is not the caller's failure.
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.stdin);
  }
  return new Promise<RunResult>((resolve, reject) => {
    let timedOut = false;
    let aborted = false;
    let killing: Promise<string> | undefined;
    let exit: { code: number | null; signal: string | null } | undefined;
    let openPipes = 2;
    let drainTimer: ReturnType<typeof setTimeout> | undefined;
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    const pipesClosed = new Promise<void>((done) => {
      const onEnd = () => {
        openPipes -= 1;
        if (openPipes === 0) done();
      };
      for (const [stream, capture, name] of [
        [child.stdout!, stdout, "stdout"],
        [child.stderr!, stderr, "stderr"],
      ] as const) {
        const decoder = new TextDecoder("utf-8");
        stream.on("data", (bytes: Uint8Array) => {
          const chunk = decoder.decode(bytes, { stream: true });
          if (!chunk) return;
          capture.add(chunk);
          options.onOutput?.(chunk, name);
        });
        stream.once("close", () => {
          const rest = decoder.decode();
          if (rest) {
            capture.add(rest);
            options.onOutput?.(rest, name);
          }
          onEnd();
        });
      }
    });

    const killTree = () => {
      killing ??= killProcessTree(child, { graceMs: options.graceMs, settled: Promise.all([exited, pipesClosed]).then(() => undefined) });
      return killing;
    };
    // Once the leader has exited the command is over: a late timeout or abort changes nothing.
    const timer = setTimeout(() => {
      if (exit) return;
      timedOut = true;
      void killTree();
    }, options.timeoutMs);
    const onAbort = () => {
      if (exit) return;
      aborted = true;
      void killTree();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = async () => {
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      const sentSignal = killing ? await killing : undefined;
      resolve({
        code: exit?.code ?? null,
        exitSignal: exit?.signal ?? null,
        stdout: stdout.result(),
        stderr: stderr.result(),
        timedOut,
        aborted,
        ...(sentSignal ? { sentSignal } : {}),
      });
    };

    child.once("error", (error) => {
      if (child.pid === undefined) {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        reject(error);
      }
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      clearTimeout(timer);
      // Background descendants may hold the pipes open for good; read what is buffered, then stop.
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, _DRAIN_MS);
      void pipesClosed.then(finish);
    });
  });
}

export interface KillOptions {
  graceMs?: number;
  /** Resolves when the tree looks finished (leader exited, pipes closed): SIGKILL follows at once. */
  settled?: Promise<void>;
}

/**
 * Ends the child's whole process tree: SIGTERM to the group, then — after the tree settles or the
 * grace period passes, whichever is first — SIGKILL to the group, so members that trap or ignore
 * SIGTERM die too. Resolves with the last signal sent, once the leader has exited.
 */
export async function killProcessTree(child: ChildProcess, options: KillOptions = {}): Promise<string> {
  const pid = child.pid;
  if (pid === undefined) return "SIGKILL";
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((done) => child.once("exit", () => done()));
  if (process.platform === "win32") {
    await _runTaskkill(pid);
    await exited;
    return "SIGKILL";
  }
  _signalGroup(pid, "SIGTERM");
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<void>((done) => {
    graceTimer = setTimeout(done, options.graceMs ?? KILL_GRACE_MS);
  });
  await Promise.race([options.settled ?? exited, grace]);
  clearTimeout(graceTimer);
  // Sent even when the leader is gone: descendants that ignored SIGTERM may remain in the group.
  _signalGroup(pid, "SIGKILL");
  await exited;
  return "SIGKILL";
}

function _signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function _runTaskkill(pid: number): Promise<void> {
  return new Promise((done) => {
    const killer = spawn("taskkill", ["/PID", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true });
    killer.once("error", () => done());
    killer.once("exit", () => done());
  });
}

interface _Capture {
  add(chunk: string): void;
  result(): CapturedText;
}

function _createCapture(limit: number, end: "head" | "tail"): _Capture {
  let text = "";
  let dropped = 0;
  return {
    add(chunk) {
      if (end === "head") {
        const room = limit - text.length;
        if (room >= chunk.length) text += chunk;
        else {
          text += chunk.slice(0, Math.max(0, room));
          dropped += chunk.length - Math.max(0, room);
        }
        return;
      }
      text += chunk;
      // Trim in batches so a stream of tiny chunks does not copy the whole buffer each time.
      if (text.length > limit * 2) {
        dropped += text.length - limit;
        text = text.slice(-limit);
      }
    },
    result() {
      if (end === "tail" && text.length > limit) {
        dropped += text.length - limit;
        text = text.slice(-limit);
      }
      return { text, dropped };
    },
  };
}
