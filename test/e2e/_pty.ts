/**
 * The one pseudo-terminal driver for end-to-end tests: the built binary under a terminal of
 * 200x50 (or `cols` wide), keys typed as bytes, and the screen read back with ANSI codes removed
 * (`raw()` keeps them). Every wait is bounded.
 */
import { BINARY, binaryEnv } from "./_harness.ts";

export interface PtyDriver {
  /** Types text; "\r" is Enter, "\x03" is ctrl-c, "\x1b" is Esc. */
  type(text: string): void;
  /** Waits until the screen (ANSI codes removed) holds `text` after position `from`; returns the position after it. */
  until(text: string, from?: number): Promise<number>;
  screen(): string;
  /** Everything the program wrote, ANSI codes included. */
  raw(): string;
  /** Resizes the terminal (the program gets SIGWINCH). */
  resize(cols: number, rows?: number): void;
  exited: Promise<number>;
  kill(): void;
}

export interface PtyOptions {
  cwd: string;
  home: string;
  env: Record<string, string>;
  /** Columns of the terminal; 200 when absent. */
  cols?: number;
}

export function startPty(args: string[], options: PtyOptions): PtyDriver {
  let raw = "";
  const decoder = new TextDecoder();
  // Each `until` is woken by the bytes that arrive (and by the exit), not by a polling clock.
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const proc = Bun.spawn([BINARY, ...args], {
    cwd: options.cwd,
    env: binaryEnv(options.home, options.env),
    terminal: {
      cols: options.cols ?? 200,
      rows: 50,
      data: (_terminal, data) => {
        raw += decoder.decode(data, { stream: true });
        wake();
      },
    },
  });
  void proc.exited.then(wake);
  // eslint-disable-next-line no-control-regex
  const screen = () => raw.replace(/\x1b\[[0-9;?]*[A-Za-z~]/g, "").replace(/\r/g, "");
  return {
    type: (text) => void proc.terminal!.write(text),
    until(text, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const at = screen().indexOf(text, from);
          if (at < 0) return;
          finish();
          resolve(at + text.length);
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${screen()}`));
        }, 15_000);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    screen,
    raw: () => raw,
    resize: (cols, rows = 50) => proc.terminal!.resize(cols, rows),
    exited: proc.exited,
    kill: () => proc.kill("SIGKILL"),
  };
}

/**
 * The REPL under the driver for the length of `body`: started with `args`, waited on until the
 * screen shows `ready` (the prompt, `› `, unless told), and killed (and awaited) after, whatever
 * `body` did. The one setup every REPL test shares.
 */
export async function withPty(options: PtyOptions & { args?: string[]; ready?: string }, body: (repl: PtyDriver) => Promise<void>): Promise<void> {
  const { args = [], ready = "› ", ...pty } = options;
  const repl = startPty(args, pty);
  try {
    await repl.until(ready);
    await body(repl);
  } finally {
    repl.kill();
    await repl.exited;
  }
}
