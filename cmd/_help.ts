/** The root `--help` text: every flag, the subcommands, the config path, the environment, the state folder. */
import { paths, stateDir } from "../lib/platform/paths.ts";
import { presetKeyVariables } from "../lib/providers/presets.ts";
import { PRODUCT, VERSION } from "../lib/platform/version.ts";
import { ROOT_FLAGS } from "../lib/config/flags.ts";
import { SUBCOMMANDS } from "./_subcommands.ts";

export function renderRootHelp(): string {
  const flagRows = ROOT_FLAGS.map((flag) => {
    const names = `${flag.alias ? `-${flag.alias}, ` : "    "}--${flag.name}${flag.valueHint ? ` ${flag.valueHint}` : ""}`;
    return [names, flag.description] as const;
  });
  const commandRows = Object.entries(SUBCOMMANDS).map(([name, row]) => [`shiro ${[name, row.args].filter(Boolean).join(" ")}`, row.summary] as const);
  const envRows: (readonly [string, string])[] = [
    ["SHIRO_HOME", `folder that holds .shiro-neko/ (default: your home directory)`],
    ["SHIRO_PROVIDER", 'provider preset, overrides config "provider"'],
    ["SHIRO_PROTOCOL", "wire protocol: chat, responses, anthropic"],
    ["SHIRO_MODEL", 'model id, overrides config "model"'],
    ["SHIRO_BASE_URL", 'API root, overrides config "baseURL"'],
    ["SHIRO_API_KEY", "API key for any provider, beats every other key source"],
    ...presetKeyVariables().map((name) => [name, "key of the provider preset that reads it"] as const),
    ["NO_COLOR", "plain output without ANSI colours"],
  ];
  const table = (rows: readonly (readonly [string, string])[]) => {
    const width = Math.max(...rows.map(([left]) => left.length)) + 2;
    return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join("\n");
  };
  return [
    `${PRODUCT} ${VERSION}: a coding agent that remembers`,
    "",
    "Usage:",
    "  shiro [flags]                 interactive session",
    '  shiro -p "prompt" [flags]     one headless turn (also: echo prompt | shiro)',
    "  shiro <command> [args]        manage state (below)",
    "",
    "Flags:",
    table(flagRows),
    "",
    "Commands:",
    table(commandRows),
    "",
    "Exit codes: 0 completed, 1 error, 2 usage, 3 blocked on approval, 4 step cap or cost limit reached, 130 interrupted",
    "",
    "Environment:",
    table(envRows),
    "",
    `Config file:   ${paths.config()}`,
    `State folder:  ${stateDir()}  (sessions/, memory/, history/, runs/, events/, approvals.json)`,
  ].join("\n");
}
