/**
 * docs/configuration.md lists every preset exactly as PRESETS defines it: the table between the
 * `presets` markers must equal the one rendered here (paste this rendering when presets change).
 * Its config key table names every key the schema accepts, with the defaults the code uses.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { DEFAULT_MAX_STEPS, VARIANTS } from "../../lib/agent/variants.ts";
import { configSchema } from "../../lib/config/config.ts";
import { DEFAULT_PLUGINS } from "../../lib/extensions/plugin-host.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../../lib/providers/client.ts";
import { PRESETS, PRESET_IDS } from "../../lib/providers/presets.ts";
import { DEFAULT_TOOL_SETS } from "../../lib/tools/index.ts";
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

test("every config.json key is in the docs' key table, with the defaults the code uses", () => {
  const rows = new Map([..._doc.matchAll(/^\| `([\w.$]+)` \| .* \| (.*) \|$/gm)].map((match) => [match[1]!, match[2]!]));
  const keys = Object.entries(configSchema().entries).flatMap(([key, schema]) => {
    const nested = "wrapped" in schema && "entries" in schema.wrapped ? Object.keys(schema.wrapped.entries as object) : undefined;
    return key === "$schema" ? [] : nested ? nested.map((inner) => `${key}.${inner}`) : [key];
  });
  expect(keys.filter((key) => !rows.has(key))).toEqual([]);
  const list = (values: readonly string[]) => `[${values.map((value) => `"${value}"`).join(", ")}]`;
  expect(rows.get("maxSteps")).toStartWith(`\`${DEFAULT_MAX_STEPS}\`; the \`quick\` (${VARIANTS.quick.maxSteps}) and \`deep\` (${VARIANTS.deep.maxSteps})`);
  expect(rows.get("plugins")).toBe(`\`${list(DEFAULT_PLUGINS)}\``);
  expect(rows.get("toolSets")).toStartWith(`\`${list(DEFAULT_TOOL_SETS.filter((set) => set !== "core"))}\``);
  expect(rows.get("compaction.threshold")).toBe("(window - output reserve) x 0.8 (see [memory](memory.md#windows-and-overflow))");
  expect(rows.get("requestTimeoutMs")).toStartWith(`\`${DEFAULT_REQUEST_TIMEOUT_MS}\``);
  expect(rows.get("thinking")).toContain(`\`${VARIANTS.default.thinking}\` for \`default\``);
  expect(rows.get("historyPairs")).toBe("`0`");
  expect(rows.get("mcpServers")).toBe("none");
});
