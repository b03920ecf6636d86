/**
 * The format plugin: after each turn, runs the project's own formatter in the workspace root.
 * The first of these that applies, and only it: `bun run format` (package.json has a `format`
 * script), `cargo fmt` (Cargo.toml), `gofmt -w .` (go.mod). Spawned with argv, never a shell;
 * killed after 60 s; a formatter that is missing or fails is ignored. It runs in the session's
 * sandbox, like bash (writes only in the workspace).
 */
import { childEnv } from "../lib/secrets/child-env.ts";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Plugin } from "../lib/extension-api/plugin-api.ts";
import { childProcess } from "../lib/platform/runtime.ts";

export const FORMAT_TIMEOUT_MS = 60_000;

/** The formatter command for the project at `cwd`, or undefined when it has none. */
export function pickFormatter(cwd: string): string[] | undefined {
  if (_hasFormatScript(join(cwd, "package.json"))) return ["bun", "run", "format"];
  if (existsSync(join(cwd, "Cargo.toml"))) return ["cargo", "fmt"];
  if (existsSync(join(cwd, "go.mod"))) return ["gofmt", "-w", "."];
  return undefined;
}

function _hasFormatScript(packageJson: string): boolean {
  try {
    const scripts = (JSON.parse(readFileSync(packageJson, "utf8")) as { scripts?: Record<string, unknown> }).scripts;
    return typeof scripts?.format === "string" && scripts.format.trim() !== "";
  } catch {
    return false;
  }
}

/** Runs `argv` in `cwd` and resolves when it ends, fails to start, or is killed at the deadline. */
export function runFormatter(argv: readonly string[], cwd: string, timeoutMs = FORMAT_TIMEOUT_MS): Promise<void> {
  return new Promise((resolve) => {
    // Its own process group, so the deadline also ends what the formatter started (bun run → script).
    const ownGroup = process.platform !== "win32";
    const child = childProcess().spawn(argv[0]!, argv.slice(1), { cwd, env: childEnv(), stdio: "ignore", detached: ownGroup });
    const timer = setTimeout(() => {
      try {
        if (ownGroup && child.pid) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      resolve();
    };
    child.once("error", finish);
    child.once("exit", finish);
  });
}

/** `wrap` turns the formatter's argv into the sandboxed one (see PluginContext.wrapCommand). */
export function createFormatPlugin(cwd: string, wrap?: (argv: readonly string[]) => string[]): Plugin {
  return {
    name: "format",
    description: "runs the project's formatter after each turn (bun run format, cargo fmt or gofmt)",
    async afterTurn() {
      const argv = pickFormatter(cwd);
      if (argv) await runFormatter(wrap ? wrap(argv) : argv, cwd);
    },
  };
}
