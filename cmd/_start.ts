/**
 * Starts a session from the root flags: headless (`-p`, or a prompt piped on stdin) or the
 * interactive REPL. Headless output: text mode prints the answer on stdout and progress on
 * stderr; `--json` prints one AgentEvent per line on stdout and nothing else there.
 */
import { spawn } from "node:child_process";
import { EXIT, UsageError } from "../lib/platform/errors.ts";
import type { ParsedFlags } from "./_flags.ts";
import { agentFlagsFrom } from "../lib/config/flags.ts";
import { writeOut, writeErr } from "../lib/ui/output.ts";

async function _readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8").trim();
}

export async function startSession(flags: ParsedFlags): Promise<number> {
  const headless = flags.print !== undefined || !process.stdin.isTTY;
  if (flags.json && !headless) throw new UsageError("--json needs -p (headless mode)");
  if (flags.detach && !headless) throw new UsageError("--detach needs -p (headless mode)");
  if (flags.continue && flags.resume) throw new UsageError("use -c or -r, not both");
  if (!headless) {
    const { startRepl } = await import("../lib/ui/repl.ts");
    return startRepl(agentFlagsFrom(flags));
  }
  let prompt = typeof flags.print === "string" && flags.print !== "-" ? flags.print.trim() : "";
  if (!prompt && !process.stdin.isTTY) prompt = await _readStdin();
  if (!prompt) throw new UsageError("-p needs a prompt argument or piped stdin");
  if (flags.detach) return _detach(prompt);
  const { runHeadless } = await import("./_headless.ts");
  return runHeadless(prompt, agentFlagsFrom(flags), { json: flags.json === true });
}

/** Re-runs this shiro in the background with the same flags (minus --detach) and prints the run id. */
async function _detach(prompt: string): Promise<number> {
  const { uuidv7 } = await import("../lib/platform/ids.ts");
  const { selfCommand } = await import("../lib/platform/runtime.ts");
  const { sealedEnv } = await import("../lib/secrets/key-vault.ts");
  const runId = uuidv7();
  const args = process.argv.slice(2).filter((arg) => arg !== "--detach");
  const withPrompt = _replacePrompt(args, prompt);
  const [command, ...prefix] = selfCommand();
  const child = spawn(command!, [...prefix, ...withPrompt], {
    detached: true,
    stdio: "ignore",
    cwd: process.cwd(),
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
