/**
 * Offer only what can run, in-process: which of an asking tool (bash) and a writing tool
 * (write_file) a headless run's first request carries, for each way a run may be allowed to use
 * them (flags, config rules). Moved from test/e2e/request-budget.test.ts: what is asserted is the
 * request the fake provider received, which needs no compiled binary; that file keeps a
 * withheld tool called anyway, through the binary.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentFlags } from "../../lib/config/flags.ts";
import type { RecordedRequest } from "../fakes/provider.ts";
import { runTurn, useFakeProvider, writeConfig } from "./in-process-agent.ts";
import { useTempHome } from "./temp-home.ts";

useTempHome("shiro-offered-");
const fake = useFakeProvider();

const toolNamesOf = (request: RecordedRequest): string[] =>
  ((request.body.tools ?? []) as { name?: string; function?: { name: string } }[]).map((tool) => String(tool.name ?? tool.function?.name));

/** `flags` as `shiro -p` sets them from the command line named in `label`. */
const cases: { label: string; flags: Partial<AgentFlags>; config?: unknown; bash: boolean; write: boolean }[] = [
  { label: "default -p", flags: {}, bash: false, write: false },
  { label: "--yolo", flags: { yolo: true, approvals: undefined }, bash: true, write: true },
  { label: "--approvals block", flags: { approvals: "block" }, bash: true, write: true },
  { label: "an allow rule for one bash command", flags: {}, config: { permission: { bash: { "npm test": "allow" } } }, bash: true, write: false },
  { label: "an allow rule for one path", flags: {}, config: { permission: { write_file: { "docs/*": "allow" } } }, bash: false, write: true },
  { label: "a wildcard allow rule (a built-in keeps its own table)", flags: {}, config: { permission: { "*_file": "allow" } }, bash: false, write: false },
  { label: "an ask rule only", flags: {}, config: { permission: { bash: "ask" } }, bash: false, write: false },
];
for (const c of cases) {
  test(`${c.label}: bash ${c.bash ? "offered" : "withheld"}, write_file ${c.write ? "offered" : "withheld"}`, async () => {
    const cwd = mkdtempSync(join(tmpdir(), "shiro-offered-cwd-"));
    try {
      if (c.config) writeConfig(c.config);
      fake().reset();
      fake().script({ text: "ok" });
      const { events } = await runTurn(fake(), { cwd, protocol: "chat", prompt: "hi", flags: c.flags });
      expect(events.at(-1)).toMatchObject({ type: "done", stop: "completed" });
      const names = toolNamesOf(fake().requests[0]!);
      expect([names.includes("bash"), names.includes("write_file")]).toEqual([c.bash, c.write]);
      expect(fake().violations).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
}
