/** The builtin plugins by name: the names config `plugins` may list. */
import type { BUILTIN_PLUGIN_NAMES } from "../lib/config/config.ts";
import type { PluginFactory } from "../lib/extension-api/plugin-api.ts";
import { createBellPlugin } from "./bell.ts";
import { createFormatPlugin } from "./format.ts";
import { createGuardPlugin } from "./guard-plugin.ts";
import { createProtectPlugin } from "./protect.ts";
import { createSecretsPlugin } from "./secrets.ts";
import { createTimePlugin } from "./time.ts";

export const BUILTIN_PLUGINS: Readonly<Record<(typeof BUILTIN_PLUGIN_NAMES)[number], PluginFactory>> = {
  guard: () => createGuardPlugin(),
  secrets: () => createSecretsPlugin(),
  protect: () => createProtectPlugin(),
  time: () => createTimePlugin(),
  bell: (context) => createBellPlugin(context),
  format: (context) => createFormatPlugin(context.cwd, context.wrapCommand),
};
