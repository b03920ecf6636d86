/**
 * Starts a session from the root flags: headless (`-p`, or a prompt piped on stdin) or the
 * interactive REPL. Headless output: text mode prints the answer on stdout and progress on
 * stderr; `--output-format stream-json` (alias `--json`) prints one AgentEvent per line on stdout
 * and nothing else there; `--output-format json` prints one result object at the end.
 * `-C DIR` moves the process into DIR first; the files named by `--output-last-message` and
 * `--output-schema` are resolved where shiro was started.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { EXIT, UsageError } from "../lib/platform/errors.ts";
import type { ParsedFlags } from "./_flags.ts";
import { agentFlagsFrom } from "../lib/config/flags.ts";
import { writeOut, writeErr } from "../lib/ui/output.ts";
import { setStartupTraceSink } from "../lib/agent/startup-trace.ts";
import { childProcess } from "../lib/platform/runtime.ts";

async function _readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8").trim();
}

const _HEADLESS_ONLY = ["json", "detach", "output-format", "output-last-message", "output-schema", "image"] as const;

export async function startSession(flags: ParsedFlags): Promise<number> {
  setStartupTraceSink(writeErr);
  const startedAt = Date.now();
  const headless = flags.print !== undefined || !process.stdin.isTTY;
  for (const name of _HEADLESS_ONLY) if (flags[name] !== undefined && !headless) throw new UsageError(`--${name} needs -p (headless mode)`);
  const formatFlag = typeof flags["output-format"] === "string" ? flags["output-format"] : undefined;
  if (flags.json && formatFlag && formatFlag !== "stream-json")
    throw new UsageError(`--json is --output-format stream-json; it cannot be combined with --output-format ${formatFlag}`);
  const format = (formatFlag ?? (flags.json ? "stream-json" : "text")) as "text" | "json" | "stream-json";
  const started = process.cwd();
  const fromStart = (name: string) => (typeof flags[name] === "string" && flags[name] !== "" ? resolve(started, flags[name] as string) : undefined);
  const lastMessageFile = fromStart("output-last-message");
  const schemaFile = fromStart("output-schema");
  if (flags.continue && flags.resume) throw new UsageError("use -c or -r, not both");
  if (typeof flags.cd === "string") _enter(flags.cd);
  if (!headless) {
    const { startRepl } = await import("../lib/ui/repl.ts");
    return startRepl(agentFlagsFrom(flags));
  }
  let prompt = typeof flags.print === "string" && flags.print !== "-" ? flags.print.trim() : "";
  if (!prompt && !process.stdin.isTTY) prompt = await _readStdin();
  if (!prompt) throw new UsageError("-p needs a prompt argument or piped stdin");
  if (flags.detach) return _detach(prompt, started);
  const { runHeadless } = await import("./_headless.ts");
  const images = Array.isArray(flags.image) ? flags.image : [];
  // The schema's path is kept absolute: a detached child or `runs resume` reads it from elsewhere.
  return runHeadless(prompt, agentFlagsFrom({ ...flags, "output-schema": schemaFile }), { format, lastMessageFile, images, startedAt });
}

/** `-C DIR`: every later step (config, session, tools) runs in DIR. */
function _enter(dir: string): void {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`-C ${dir}: no such folder`);
  process.chdir(dir);
}

/** Re-runs this shiro in the background with the same flags (minus --detach), from where it was started, and prints the run id. */
async function _detach(prompt: string, started: string): Promise<number> {
  const { uuidv7 } = await import("../lib/platform/ids.ts");
  const { selfCommand } = await import("../lib/platform/runtime.ts");
  const { sealedEnv } = await import("../lib/secrets/key-vault.ts");
  const runId = uuidv7();
  const args = process.argv.slice(2).filter((arg) => arg !== "--detach");
  const withPrompt = _replacePrompt(args, prompt);
  const [command, ...prefix] = selfCommand();
  const child = childProcess().spawn(command!, [...prefix, ...withPrompt], {
    detached: true,
    stdio: "ignore",
    cwd: started,
    env: { ...sealedEnv(), SHIRO_RUN_ID: runId, SHIRO_DETACHED: "1" },
  });
  child.unref();
  writeOut(`${runId}\n`);
  const { shortRunId } = await import("../lib/store/short-ids.ts");
  writeErr(`shiro: run ${shortRunId(runId)} started in the background (pid ${child.pid}); follow it with: shiro runs tail ${runId}\n`);
  return EXIT.ok;
}

/** Makes sure the detached child gets the prompt as an argument (stdin is not passed on). */
function _replacePrompt(args: string[], prompt: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-p" || arg === "--print") {
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith("-")) i++;
      continue;
    }
    if (arg.startsWith("--print=")) continue;
    out.push(arg);
  }
  return [`--print=${prompt}`, ...out];
}
