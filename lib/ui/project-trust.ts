/**
 * The question put before a project's `.mcp.json` runs anything: it names every server, the
 * command it would start (or the URL it would reach), the environment it sets, and the workspace
 * files it runs from; the answer is remembered for this exact file and those files' content
 * (lib/store/project-mcp.ts). Asked once per file content, in the REPL only, before the
 * session opens; `n` (or anything but y) leaves the servers off for this start and asks again next
 * time. A file that cannot be read is said so and nothing runs.
 */
import { createInterface } from "node:readline/promises";
import { describeTarget } from "../extensions/mcp/servers.ts";
import { findProjectRoot } from "../config/project.ts";
import { readProjectMcp, trustProjectMcp } from "../store/project-mcp.ts";
import type { Style } from "./style.ts";

/** Puts the question when this project has an untrusted `.mcp.json` (not with --no-mcp: `mcpOff`). */
export async function askProjectTrust(cwd: string, mcpOff: boolean, write: (text: string) => void, style: Style): Promise<void> {
  if (mcpOff) return;
  let project: ReturnType<typeof readProjectMcp>;
  try {
    project = readProjectMcp(findProjectRoot(cwd));
  } catch (error) {
    write(style.yellow(`${error instanceof Error ? error.message : String(error)}\n`));
    return;
  }
  if (!project || project.trusted || Object.keys(project.servers).length === 0) return;
  const lines = Object.entries(project.servers).map(([name, server]) => {
    const env = "env" in server && server.env ? Object.entries(server.env) : [];
    return [`  ${name}: ${describeTarget(server)}`, ...env.map(([key, value]) => `    env ${key}=${JSON.stringify(value)}`)].join("\n");
  });
  const files = project.files.length > 0 ? `  runs workspace files (trust covers their content): ${project.files.join(", ")}\n` : "";
  write(style.yellow(`${project.path} asks to start ${lines.length} MCP server${lines.length === 1 ? "" : "s"}:\n`) + `${lines.join("\n")}\n${files}`);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdout.isTTY) });
  let answer = "";
  try {
    answer = await rl.question("Trust this folder's .mcp.json and run them? y yes, remember it | n not now ");
  } finally {
    rl.close();
  }
  if (["y", "yes"].includes(answer.trim().toLowerCase())) {
    trustProjectMcp(project);
    write("trusted; the servers start with the session\n");
  } else write(style.dim("not trusted: its servers stay off (asked again next start)\n"));
}
