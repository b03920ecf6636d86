/**
 * docs/configuration.md lists every preset exactly as PRESETS defines it: the table between the
 * `presets` markers must equal the one rendered here (paste this rendering when presets change).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { PRESETS, PRESET_IDS } from "../../lib/providers/presets.ts";
import { THINKING_MAPPING } from "../../lib/providers/thinking.ts";

const _doc = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");

function _renderPresetTable(): string {
  const rows = PRESETS.map((preset) => {
    const base = preset.baseURL ? `\`${preset.baseURL}\`` : "you supply it";
    const key = preset.keyEnv ? `\`${preset.keyEnv}\`` : preset.keyless ? "none (keyless)" : "`SHIRO_API_KEY` or `apiKey`";
    const model = preset.defaultModel ? `\`${preset.defaultModel}\`` : "you supply it";
    return `| \`${preset.id}\` | ${preset.label} | ${preset.protocol} | ${base} | ${key} | ${model} |`;
  });
  return ["| id | label | protocol | base URL | key variable | default model |", "|---|---|---|---|---|---|", ...rows].join("\n");
}

test("the preset table in docs/configuration.md matches PRESETS", () => {
  const table = /<!-- presets:start -->\n([\s\S]*?)\n<!-- presets:end -->/.exec(_doc)?.[1];
  expect(table).toBe(_renderPresetTable());
  for (const id of PRESET_IDS) expect(table).toContain(`| \`${id}\` |`);
});

test("the thinking table in docs/configuration.md matches the mapping", () => {
  for (const [level, mapping] of Object.entries(THINKING_MAPPING)) {
    const effort = mapping.openaiEffort ? `\`${mapping.openaiEffort}\`` : "not sent";
    const budget = mapping.anthropicBudget === undefined ? "thinking off" : String(mapping.anthropicBudget);
    expect(_doc).toContain(`| \`${level}\` | ${effort} | ${budget} |`);
  }
});
