/**
 * The environment shiro gives the processes the model can drive (bash commands, MCP stdio
 * servers): its own, minus every key variable — `SHIRO_API_KEY`, each preset's `keyEnv` and every
 * variable a config `*apiKeyEnv` setting names (`memory.embeddings.apiKeyEnv`) — unless config
 * `passEnv` names it. A command the model writes cannot read the key shiro talks to the provider
 * with, nor send it anywhere. Keys sealed at start (key-vault.ts) are not in `process.env` any
 * more; a `passEnv` name gets its sealed value back.
 *
 * `passEnv` is read from config.json at each call, so the rule holds for every process spawned,
 * whatever started it; an unreadable config passes nothing through.
 */
import { loadConfigFile, type ConfigFile } from "../config/config.ts";
import { presetKeyVariables } from "../providers/presets.ts";
import { sealedKey } from "./key-vault.ts";

/** The provider key variables, withheld from child processes unless named in config `passEnv`. */
export function providerKeyVariables(): string[] {
  return ["SHIRO_API_KEY", ...presetKeyVariables()];
}

/** The provider key variables and every variable a `*apiKeyEnv` setting of `file` names. */
export function keyVariables(file: ConfigFile | undefined = _configFile()): string[] {
  return [...new Set([...providerKeyVariables(), ..._apiKeyEnvNames(file)])];
}

/**
 * `env` without the key variables, except those in `passEnv` (default: config `passEnv`). With the
 * default `env` (process.env), a `passEnv` name that was sealed gets its value back.
 */
export function childEnv(passEnv?: readonly string[], env?: NodeJS.ProcessEnv): Record<string, string> {
  const file = passEnv === undefined || env === undefined ? _configFile() : undefined;
  const passed = passEnv ?? file?.passEnv ?? [];
  const withheld = new Set(keyVariables(file).filter((name) => !passed.includes(name)));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? process.env)) {
    if (value !== undefined && !withheld.has(name)) out[name] = value;
  }
  if (env === undefined) {
    for (const name of passed) {
      const value = sealedKey(name);
      if (value !== undefined && out[name] === undefined) out[name] = value;
    }
  }
  return out;
}

/** Every string value of a key ending in `apiKeyEnv`, anywhere in the config. */
function _apiKeyEnvNames(file: unknown): string[] {
  if (!file || typeof file !== "object") return [];
  const names: string[] = [];
  for (const [key, value] of Object.entries(file as Record<string, unknown>)) {
    if (typeof value === "string" && /apiKeyEnv$/i.test(key)) names.push(value);
    else if (value && typeof value === "object") names.push(..._apiKeyEnvNames(value));
  }
  return names;
}

function _configFile(): ConfigFile | undefined {
  try {
    return loadConfigFile();
  } catch {
    return undefined;
  }
}
