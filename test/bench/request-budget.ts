/**
 * `bun run bench` part: the first request's bytes per configuration, as the fake provider received
 * them (request-bytes.ts), next to the same configuration with every schema in full
 * (`deferTools: false`) and to the figure before the request budget (issue 13).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { measureFirstRequest, type MeasureOptions } from "./request-bytes.ts";

const _require = createRequire(import.meta.url);
const _server = (name: string) => _require.resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);

/** Chat protocol, measured before the budget work: the prompt listed every tool and all 27 schemas went in full. */
const _BEFORE: Record<string, number> = { default: 15_248 };

function _writeConfig(home: string, config: Record<string, unknown>): void {
  mkdirSync(join(home, ".shiro-neko"), { recursive: true });
  writeFileSync(join(home, ".shiro-neko", "config.json"), JSON.stringify(config));
}

const _threeServers = (cwd: string) => ({
  memory: { command: process.execPath, args: [_server("memory")], env: { MEMORY_FILE_PATH: join(cwd, "graph.jsonl") } },
  filesystem: { command: process.execPath, args: [_server("filesystem"), cwd] },
  everything: { command: process.execPath, args: [_server("everything")] },
});

const CONFIGURATIONS: { name: string; args?: string[]; config?: (cwd: string) => Record<string, unknown>; setup?: MeasureOptions["setup"] }[] = [
  { name: "default" },
  { name: "--no-memory --no-skills", args: ["--no-memory", "--no-skills"] },
  { name: "--yolo", args: ["--yolo"] },
  { name: "three MCP servers, --yolo", args: ["--yolo"], config: (cwd) => ({ mcpServers: _threeServers(cwd) }) },
  {
    name: "200 skills",
    setup: ({ home }) => {
      for (let i = 0; i < 200; i++) {
        const dir = join(home, ".shiro-neko", "skills", `skill-${i}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          join(dir, "SKILL.md"),
          `---\nname: skill-${i}\ndescription: Load when the task touches area ${i} of the product, to follow its conventions.\n---\n# Skill ${i}\n`,
        );
      }
    },
  },
];

export async function benchRequestBudget(): Promise<void> {
  console.log("first request bytes (chat, empty git repository, as received by the fake provider; budget 9,000 for the default):");
  for (const c of CONFIGURATIONS) {
    const run = (extra: Record<string, unknown>) =>
      measureFirstRequest("chat", {
        args: c.args,
        setup: (dirs) => {
          c.setup?.(dirs);
          _writeConfig(dirs.home, { ...(c.config?.(dirs.cwd) ?? {}), ...extra });
        },
      });
    const lean = await run({});
    const full = await run({ deferTools: false });
    const before = _BEFORE[c.name] !== undefined ? `; before the budget ${_BEFORE[c.name]!.toLocaleString("en-US")}` : "";
    console.log(
      `  ${c.name.padEnd(28)} ${lean.total.toLocaleString("en-US").padStart(7)} B (${lean.tools.length} tools in full); every schema in full ${full.total.toLocaleString("en-US")} B${before}`,
    );
  }
}

if (import.meta.main) await benchRequestBudget();
