/**
 * Tool results on the wire, in-process over every protocol: parallel calls of one step are all
 * answered in call order, and an unknown tool or invalid arguments go back to the model as
 * errors. Moved from test/e2e/headless.test.ts, which keeps both through the binary over chat
 * (with what the user reads on stderr); what is asserted here is the next request the fake
 * provider received.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolResultsOf } from "../fakes/wire-readers.ts";
import { runTurn, useFakeProvider, type Protocol } from "./in-process-agent.ts";
import { useTempHome } from "./temp-home.ts";

useTempHome("shiro-tool-results-");
const fake = useFakeProvider();

/** One turn in a fresh folder holding `files`: the tool results of the request after the first, and the names of the calls that ended in a tool-error event. */
async function secondRequestResults(protocol: Protocol, files: Record<string, string>): Promise<{ outputs: string[]; failed: string[] }> {
  const cwd = mkdtempSync(join(tmpdir(), "shiro-tool-results-cwd-"));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
    const { events } = await runTurn(fake(), { cwd, protocol, prompt: "go" });
    expect(events.at(-1)).toMatchObject({ type: "done", stop: "completed" });
    expect(fake().violations).toEqual([]);
    const failed = events.flatMap((event) => (event.type === "tool-error" ? [event.name] : []));
    return { outputs: toolResultsOf(fake().requests[1]!).map((result) => result.output), failed };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

for (const protocol of ["chat", "responses", "anthropic"] as const) {
  describe(`tool results over ${protocol}`, () => {
    test("parallel calls in one step are all answered, in call order", async () => {
      fake().reset();
      fake().script(
        {
          toolCalls: [
            { name: "read_file", input: { path: "a.txt" } },
            { name: "read_file", input: { path: "b.txt" } },
            { name: "glob", input: { pattern: "*.txt" } },
          ],
        },
        { text: "ok" },
      );
      expect(await secondRequestResults(protocol, { "a.txt": "A\n", "b.txt": "B\n" })).toEqual({ outputs: ["1: A", "1: B", "a.txt\nb.txt"], failed: [] });
    });

    test("an unknown tool and invalid arguments come back to the model as errors", async () => {
      fake().reset();
      fake().script(
        {
          toolCalls: [
            { name: "launch_rockets", input: {} },
            { name: "read_file", input: { path: 42 } },
            { name: "read_file", rawArgs: "{not json" },
          ],
        },
        { text: "sorry" },
      );
      // chat and responses carry no error flag on results, so the adapters prefix "Error: ".
      const { outputs: raw, failed } = await secondRequestResults(protocol, {});
      const outputs = raw.map((output) => output.replace(/^Error: /, ""));
      // What headless prints as `[tool-error] launch_rockets` on stderr (the binary's test, over chat).
      expect(failed).toContain("launch_rockets");
      expect(outputs[0]).toStartWith('Unknown tool "launch_rockets". Available tools: ');
      expect(outputs[1]).toStartWith('Invalid arguments for read_file: "path" ');
      expect(outputs[2]).toStartWith("Invalid arguments for read_file: not a JSON object");
    });
  });
}
