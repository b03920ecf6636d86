/** `shiro sessions` and `shiro sessions show` as a user runs them. */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { estimateTokens } from "../../lib/agent/context/planner.ts";
import { openSessionWriter } from "../../lib/store/sessions.ts";
import { appendExchange, createSession } from "../../lib/store/session-record.ts";
import { formatLocalMinute } from "../../lib/ui/session-lines.ts";
import { useTempHome } from "./temp-home.ts";

const SHIRO = join(import.meta.dir, "..", "..", "cmd", "shiro.ts");
const home = useTempHome("shiro-sessions-cli-");

async function shiro(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn({
    cmd: [process.execPath, SHIRO, ...args],
    env: { ...process.env, SHIRO_HOME: home.dir },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

test("no sessions yet", async () => {
  expect(await shiro("sessions", "--all")).toEqual({ code: 0, stdout: "no saved sessions\n", stderr: "" });
  expect(await shiro("sessions", "--json")).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
});

test("lists saved sessions and shows one by prefix", async () => {
  const session = createSession({ cwd: "/work/app", provider: "openai", model: "gpt-test" });
  const writer = openSessionWriter(session);
  session.messages.push(
    { role: "user", content: "why does the pagination test fail on the last page?" },
    { role: "assistant", parts: [{ type: "text", text: "An off-by-one." }] },
  );
  session.inputTokens = 4821;
  session.outputTokens = 310;
  session.costUsd = 0.0913;
  session.notebook.todos = [
    { content: "read the code", status: "done" },
    { content: "fix the bound", status: "in_progress" },
    { content: "docs", status: "blocked", note: "no wiki access" },
  ];
  appendExchange(session, {
    query: "why does the pagination test fail on the last page?",
    answer: "An off-by-one.",
    status: "completed",
    steps: 3,
    runId: "0190eeee-0000-7000-8000-000000000000",
    at: "2025-06-01T10:00:00.000Z",
    toolsSummary: "read_file×2",
  });
  writer.markChanged();
  writer.close();

  const id8 = session.id.slice(0, 8);
  expect(await shiro("sessions", "--all")).toEqual({
    code: 0,
    stdout: `${id8}  ${formatLocalMinute(session.updatedAt)}  2msg  /work/app  why does the pagination test fail on the last page?\n`,
    stderr: "",
  });
  // Only this project's by default: the session of /work/app is not one of them.
  expect(await shiro("sessions")).toEqual({ code: 0, stdout: "no saved sessions in this project (shiro sessions --all lists every folder)\n", stderr: "" });
  expect(await shiro("sessions", "show", id8)).toEqual({
    code: 0,
    stderr: "",
    stdout: [
      `session   ${session.id}`,
      "title     why does the pagination test fail on the last page?",
      "directory /work/app",
      "model     openai/gpt-test",
      `created   ${formatLocalMinute(session.createdAt)}`,
      `updated   ${formatLocalMinute(session.updatedAt)}`,
      "messages  2",
      "tokens    4821 in, 310 out",
      "cost      $0.0913",
      "exchanges 1",
      "",
      "tasks ###.......  1/3  1 blocked",
      "[x] read the code",
      "[~] fix the bound",
      "[!] docs  (no wiki access)",
      "",
      `last exchange (completed, 3 steps, run 0190eeee, ${formatLocalMinute("2025-06-01T10:00:00.000Z")}):`,
      "> why does the pagination test fail on the last page?",
      "An off-by-one.",
      "tools: read_file×2",
      `context   ~${estimateTokens(session.messages)} tokens (estimate), 0% of the 22937 compaction threshold (window 32768, unknown model: the default)`,
      "",
    ].join("\n"),
  });
  const { context, ...shown } = JSON.parse((await shiro("sessions", "show", id8, "--json")).stdout);
  expect(shown).toEqual(JSON.parse(JSON.stringify(session)));
  expect(context).toEqual({
    tokens: estimateTokens(session.messages),
    threshold: 22937,
    window: 32768,
    windowSource: "default",
    share: 0.002,
    estimated: true,
    spans: 0,
    archived: 0,
  });
  expect(await shiro("sessions", "show", "0000")).toEqual({ code: 1, stdout: "", stderr: 'shiro: no session matching "0000"\n' });
});
