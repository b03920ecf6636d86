/**
 * The binary sends the tool schemas it carries (lib/tools/schema.ts SHIRO_TOOL_SCHEMAS, baked at
 * build time) exactly as the converter makes them from the sources: every tool of the first
 * request of `shiro -p hi`, byte for byte.
 */
import { expect, test } from "bun:test";
import { ownToolDeclarations } from "../../.ci/release/tool-schemas.ts";
import { convertInputSchema } from "../../lib/tools/schema.ts";
import { useE2E } from "./_harness.ts";

const e2e = useE2E();

test("the first request's tool schemas are the converter's, byte for byte", async () => {
  e2e.fake.script({ text: "hello" });
  const result = await e2e.shiro(["-p", "hi"]);
  expect(result.code).toBe(0);
  const sent = (e2e.fake.requests[0]!.body as { tools: { function: { name: string; parameters: unknown } }[] }).tools;
  const declared = new Map(ownToolDeclarations().map((tool) => [tool.name, tool]));
  expect(sent.length).toBeGreaterThan(3);
  for (const { function: tool } of sent) {
    const source = declared.get(tool.name);
    expect(source ? tool.name : `${tool.name} is not shiro's`).toBe(tool.name);
    expect(JSON.stringify(tool.parameters)).toBe(JSON.stringify(convertInputSchema(source!.schema)));
  }
});
