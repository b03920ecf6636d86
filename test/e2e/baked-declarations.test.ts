/**
 * What the binary carries read at build time (.ci/release/build.ts) is what the sources read at
 * start: the tool schemas (lib/tools/schema.ts SHIRO_TOOL_SCHEMAS) are the converter's, byte for
 * byte, for every tool of the first request of `shiro -p hi`, and the builtin skills' catalogue in
 * its system prompt (lib/skills/skills.ts SHIRO_BUILTIN_SKILLS) is the one their files give.
 */
import { expect, test } from "bun:test";
import { ownToolDeclarations } from "../../.ci/release/tool-schemas.ts";
import { loadSkills, renderSkillCatalogue } from "../../lib/skills/skills.ts";
import { convertInputSchema } from "../../lib/tools/schema.ts";
import { systemOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

test("the first request's tool schemas are the converter's, and its skill catalogue the files'", async () => {
  e2e.fake.script({ text: "hello" });
  const result = await e2e.shiro(["-p", "hi"]);
  expect(result.code).toBe(0);
  const request = e2e.fake.requests[0]!;
  const sent = (request.body as { tools: { function: { name: string; parameters: unknown } }[] }).tools;
  const declared = new Map(ownToolDeclarations().map((tool) => [tool.name, tool]));
  expect(sent.length).toBeGreaterThan(3);
  for (const { function: tool } of sent) {
    const source = declared.get(tool.name);
    expect(source ? tool.name : `${tool.name} is not shiro's`).toBe(tool.name);
    expect(JSON.stringify(tool.parameters)).toBe(JSON.stringify(convertInputSchema(source!.schema)));
  }
  const builtins = loadSkills({ cwd: e2e.dirs.cwd, stateDir: "/nonexistent", home: "/nonexistent" }).skills.filter((skill) => skill.origin === "builtin");
  expect(builtins.length).toBeGreaterThan(3);
  expect(systemOf(request)).toContain(renderSkillCatalogue(builtins));
});
