/**
 * `shiro registry [list] [--json]`, `search <query>`, `add <name> [--yes]`, `installed`,
 * `remove <name>`: browse the registry index (config `registryUrl`) and install or remove skills
 * and plugins. `add` shows what it fetched and asks before writing; without a terminal it needs
 * --yes.
 */
import { defineCommand } from "citty";
import { UserError } from "../lib/platform/errors.ts";
import type { RegistryEntry } from "../lib/extensions/registry/schema.ts";
import type { RegistryIndex } from "../lib/extensions/registry/registry.ts";
import { writeOut } from "../lib/ui/output.ts";

const _print = (text: string): void => {
  writeOut(`${text}\n`);
};
const _json = (value: unknown): void => _print(JSON.stringify(value, null, 2));
const _jsonFlag = { json: { type: "boolean", description: "print a JSON array" } } as const;

async function _fetchIndex(): Promise<RegistryIndex> {
  const { loadConfigFile } = await import("../lib/config/config.ts");
  const { fetchRegistryIndex, resolveRegistryUrl } = await import("../lib/extensions/registry/registry.ts");
  return fetchRegistryIndex(resolveRegistryUrl(loadConfigFile()));
}

async function _show(query: string | undefined, json: boolean): Promise<void> {
  const { listInstalled, searchRegistry } = await import("../lib/extensions/registry/registry.ts");
  await (await import("../lib/skills/skills.ts")).loadSkillYaml();
  const { isInstalled, renderRegistryList } = await import("../lib/ui/registry-view.ts");
  const index = await _fetchIndex();
  const shown = query === undefined ? index.entries : searchRegistry(index.entries, query);
  const installed = listInstalled();
  if (json) return _json(shown.map((entry) => ({ ...entry, installed: isInstalled(entry, installed) })));
  _print(renderRegistryList(shown, index.entries.length, installed));
}

async function _confirm(entry: RegistryEntry): Promise<boolean> {
  const prompts = await import("@clack/prompts");
  const answer = await prompts.confirm({ message: `install ${entry.kind} ${entry.name}?`, active: "install", inactive: "cancel", initialValue: false });
  return answer === true;
}

const listCommand = defineCommand({
  meta: { name: "list", description: "every entry in the registry index" },
  args: _jsonFlag,
  run: ({ args }) => _show(undefined, args.json === true),
});

export default defineCommand({
  meta: { name: "registry", description: "browse the registry and install or remove skills and plugins" },
  args: _jsonFlag,
  subCommands: {
    list: listCommand,
    search: defineCommand({
      meta: { name: "search", description: "entries whose name or description contains the text (case-insensitive)" },
      args: { query: { type: "positional", description: "text to look for" }, ..._jsonFlag },
      run: ({ args }) => _show(String(args.query), args.json === true),
    }),
    add: defineCommand({
      meta: { name: "add", description: "fetch an entry, show it, and install it once you agree" },
      args: {
        name: { type: "positional", description: "an entry name, or skill:<name> / plugin:<name>" },
        yes: { type: "boolean", description: "install without asking" },
      },
      async run({ args }) {
        const name = String(args.name);
        if (args.yes !== true && !process.stdin.isTTY) {
          throw new UserError(`not installing "${name}" without a confirmation: pass --yes to install without asking`);
        }
        const { commitInstall, findRegistryEntry, stageInstall } = await import("../lib/extensions/registry/registry.ts");
        const entry = findRegistryEntry((await _fetchIndex()).entries, name);
        const staged = await stageInstall(entry);
        _print([...staged.preview, "", staged.warning].join("\n"));
        if (args.yes !== true && !(await _confirm(entry))) return _print(`install cancelled: ${entry.name}`);
        _print(`installed ${entry.kind} ${entry.name} to ${commitInstall(staged)}`);
        _print("new sessions load it; a running one loads it with /reload");
      },
    }),
    installed: defineCommand({
      meta: { name: "installed", description: "the skills and plugins installed from the registry" },
      args: _jsonFlag,
      async run({ args }) {
        const { listInstalled } = await import("../lib/extensions/registry/registry.ts");
        await (await import("../lib/skills/skills.ts")).loadSkillYaml();
        const { renderInstalledList } = await import("../lib/ui/registry-view.ts");
        const installed = listInstalled();
        if (args.json === true) return _json(installed);
        _print(renderInstalledList(installed));
      },
    }),
    remove: defineCommand({
      meta: { name: "remove", description: "delete an installed skill or plugin" },
      args: { name: { type: "positional", description: "an installed name, or skill:<name> / plugin:<name>" } },
      async run({ args }) {
        const { removeInstalled } = await import("../lib/extensions/registry/registry.ts");
        const removed = removeInstalled(String(args.name));
        _print(`removed ${removed.kind} ${removed.name}`);
        _print("new sessions go without it; a running one drops it with /reload");
      },
    }),
  },
  run: ({ args }) => _show(undefined, args.json === true),
});
