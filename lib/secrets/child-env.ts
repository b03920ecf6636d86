/**
 * The environment shiro gives the processes the model can drive (bash commands, MCP stdio
 * servers): its own, minus every provider key variable — `SHIRO_API_KEY` and each preset's
 * `keyEnv` — unless config `passEnv` names it. A command the model writes cannot read the key
 * shiro talks to the provider with, nor send it anywhere.
 *
 * `passEnv` is read from config.json at each call, so the rule holds for every process spawned,
 * whatever started it; an unreadable config passes nothing through.
 */
import { loadConfigFile } from "../config/config.ts";
import { presetKeyVariables } from "../providers/presets.ts";

/** The variables withheld from child processes unless named in config `passEnv`. */
export function providerKeyVariables(): string[] {
  return ["SHIRO_API_KEY", ...presetKeyVariables()];
}

/** `env` without the provider key variables, except those in `passEnv` (default: config `passEnv`). */
export function childEnv(passEnv: readonly string[] = _configuredPassEnv(), env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const withheld = new Set(providerKeyVariables().filter((name) => !passEnv.includes(name)));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !withheld.has(name)) out[name] = value;
  }
  return out;
}

function _configuredPassEnv(): readonly string[] {
  try {
    return loadConfigFile().passEnv ?? [];
  } catch {
    return [];
  }
}
