/**
 * The built binary in a real terminal: a tmux window on a private server (its own socket, no
 * config), read back as the rows tmux shows (`capture-pane`), not as the stream of bytes, so a
 * test sees what a person sees after cursor moves, erases, reflow on a resize. For what the pty
 * driver (_pty.ts) cannot tell: whether something is drawn once. Needs tmux (`tmuxPackage`);
 * every wait is bounded.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findOnPath, hostPackage } from "../host-packages.ts";
import { BINARY, binaryEnv } from "./_harness.ts";

export const tmuxPackage = hostPackage("tmux", "apt-get install tmux", findOnPath("tmux") !== undefined);

export interface TmuxDriver {
  /** Types text as keys; "\r" is Enter. */
  type(text: string): void;
  /** Presses keys by tmux's names: `Up`, `Down`, `Enter`, `C-j`, `M-Enter`. */
  key(...names: string[]): void;
  /** The rows on screen now, trailing blanks removed. */
  rows(): string[];
  /** Waits until `probe` holds for the rows on screen; returns them. Throws with the screen after 15 s. */
  until(probe: (rows: string[]) => boolean, what: string): Promise<string[]>;
  /** Like `until`, once the screen has also stayed the same for 150 ms (a redraw is done). */
  settled(probe: (rows: string[]) => boolean, what: string): Promise<string[]>;
  resize(cols: number, rows: number): void;
  kill(): void;
}

export interface TmuxOptions {
  cwd: string;
  home: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

export function startTmux(args: string[], options: TmuxOptions): TmuxDriver {
  const socket = join(options.home, "tmux.sock");
  const tmux = (...command: string[]) => {
    const run = spawnSync("tmux", ["-S", socket, "-f", "/dev/null", ...command], { encoding: "utf8", timeout: 10_000 });
    if (run.status !== 0) throw new Error(`tmux ${command[0]} failed: ${run.stderr}`);
    return run.stdout;
  };
  const env = Object.entries({ ...binaryEnv(options.home, options.env), TERM: "screen" }).map(([key, value]) => `${key}=${value}`);
  tmux("new-session", "-d", "-s", "t", "-x", String(options.cols), "-y", String(options.rows), "-c", options.cwd, "env", "-i", ...env, BINARY, ...args);
  const rows = () =>
    tmux("capture-pane", "-p", "-t", "t")
      .replace(/\n$/, "")
      .split("\n")
      .map((row) => row.trimEnd());
  return {
    type(text) {
      for (const [index, piece] of text.split("\r").entries()) {
        if (index > 0) tmux("send-keys", "-t", "t", "Enter");
        if (piece) tmux("send-keys", "-t", "t", "-l", piece);
      }
    },
    key: (...names) => void tmux("send-keys", "-t", "t", ...names),
    rows,
    async until(probe, what) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const now = rows();
        if (probe(now)) return now;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${now.join("\n")}`);
        await Bun.sleep(50);
      }
    },
    async settled(probe, what) {
      const deadline = Date.now() + 15_000;
      let before = "";
      for (;;) {
        const now = rows();
        if (probe(now) && now.join("\n") === before) return now;
        before = now.join("\n");
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} to settle; screen:\n${before}`);
        await Bun.sleep(150);
      }
    },
    resize: (cols, height) => void tmux("resize-window", "-t", "t", "-x", String(cols), "-y", String(height)),
    kill() {
      const pane = spawnSync("tmux", ["-S", socket, "display-message", "-p", "-t", "t", "#{pane_pid}"], { encoding: "utf8", timeout: 10_000 });
      const pid = Number(pane.stdout?.trim());
      spawnSync("tmux", ["-S", socket, "kill-server"], { timeout: 10_000 });
      // shiro saves as it ends on the hang-up: the test's folders are removed only after it has (bounded).
      for (let i = 0; pid > 0 && i < 500 && _alive(pid); i++) Bun.sleepSync(20);
    },
  };
}

/** Whether `pid` is a process that has not yet ended (a zombie has). */
function _alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}
