/**
 * The fixed cost of every request: the default tool sets' schemas plus the system prompt stay
 * under 9,000 bytes on the wire (measured as the adapters send them: name, description and JSON
 * Schema per tool, and the prompt text).
 */
import { expect, test } from "bun:test";
import { buildSystemPrompt } from "../../lib/agent/prompt.ts";
import { builtinTools, selectTools } from "../../lib/tools/index.ts";
import { toToolSpec } from "../../lib/tools/schema.ts";

test("default tool schemas + system prompt < 9,000 bytes", () => {
  const { offered } = selectTools(builtinTools({ complete: async () => "" }), {});
  const toolBytes = offered.reduce((sum, tool) => sum + Buffer.byteLength(JSON.stringify(toToolSpec(tool))), 0);
  const prompt = buildSystemPrompt({
    root: "/home/someone/projects/a-typical-project", platform: "linux-x64", tools: offered,
    approvalTools: ["write_file", "edit_file", "multi_edit", "apply_patch", "move_file", "delete_file", "bash"],
  });
  expect(offered.map((tool) => tool.set)).not.toContain("net");
  expect(toolBytes + Buffer.byteLength(prompt)).toBeLessThan(9_000);
});

test("a withheld tool is absent from the prompt as well as from the tool list", () => {
  const { offered } = selectTools(builtinTools({ complete: async () => "" }), { toolSets: [] });
  const prompt = buildSystemPrompt({ root: "/r", platform: "linux-x64", tools: offered, approvalTools: [] });
  expect(offered.map((tool) => tool.name).sort()).toEqual(["bash", "edit_file", "glob", "grep", "read_file", "write_file"]);
  for (const name of ["git_status", "multi_edit", "list_dir", "web_fetch", "apply_patch"]) expect(prompt).not.toContain(name);
});
