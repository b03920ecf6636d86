/**
 * Provider setup (`/provider`, and the first interactive start without a key): pick a preset,
 * give a base URL when the preset has none, give a key unless the preset is keyless or its
 * variable is already set, pick a model from `GET {base}/models` (or type one), and save the
 * choice into config.json with a merge. Every step can be cancelled; nothing is written then.
 *
 * @clack/prompts owns the terminal while it asks: the caller pauses its readline first and
 * restores raw mode afterwards.
 */
import type { ConfigFile } from "../config/config.ts";
import { PRESETS, findPreset, type Preset } from "../providers/presets.ts";
import { sealedEnv } from "../secrets/key-vault.ts";

export interface ProviderSetupResult {
  preset: Preset;
  model: string;
  configPath: string;
}

const _TYPE_OWN = "\u0000type";

export async function runProviderSetup(env: NodeJS.ProcessEnv = sealedEnv()): Promise<ProviderSetupResult | undefined> {
  const p = await import("@clack/prompts");
  const { writeConfigPatch } = await import("../config/config.ts");
  const { paths } = await import("../platform/paths.ts");
  const { listModels } = await import("../providers/models.ts");
  const cancelled = () => {
    p.cancel("provider setup cancelled");
    return undefined;
  };

  p.intro("provider setup");
  const presetId = await p.select({
    message: "Which provider?",
    options: PRESETS.map((preset) => ({
      value: preset.id,
      label: preset.label,
      hint: preset.keyEnv && env[preset.keyEnv] ? `${preset.keyEnv} is set` : preset.keyless ? "no key needed" : preset.baseURL || "you give the URL",
    })),
  });
  if (p.isCancel(presetId)) return cancelled();
  const preset = findPreset(presetId)!;

  let baseURL = preset.baseURL;
  if (!baseURL) {
    const typed = await p.text({
      message: "API root URL",
      placeholder: preset.protocol === "anthropic" ? "https://example.com/v1" : "http://127.0.0.1:8080/v1",
      validate: (value) => (/^https?:\/\/\S+$/.test((value ?? "").trim()) ? undefined : "the URL must start with http:// or https://"),
    });
    if (p.isCancel(typed)) return cancelled();
    baseURL = typed.trim().replace(/\/+$/, "");
  }

  let apiKey: string | undefined;
  if (preset.keyless) apiKey = "local";
  else if (!(preset.keyEnv && env[preset.keyEnv]) && !env.SHIRO_API_KEY) {
    const typed = await p.password({
      message: `API key${preset.keyEnv ? ` (or set ${preset.keyEnv})` : ""}`,
      validate: (value) => ((value ?? "").trim() ? undefined : "a key is required"),
    });
    if (p.isCancel(typed)) return cancelled();
    apiKey = typed.trim();
  }
  const key = apiKey ?? env.SHIRO_API_KEY ?? (preset.keyEnv ? env[preset.keyEnv] : undefined);

  const spin = p.spinner();
  spin.start(`listing models at ${baseURL}`);
  const list = await listModels(
    { protocol: preset.protocol, baseURL, apiKey: key, compat: preset.compat, maxRetries: 0, timeoutMs: 15_000, keyEnv: preset.keyEnv },
    { fallback: preset.fallbackModels },
  );
  spin.stop(list.source === "server" ? `${list.models.length} models` : "no model list");
  if (list.warning) p.log.warn(`could not list models: ${list.warning}`);

  let model: string | symbol;
  if (list.models.length > 0) {
    model = await p.select({
      message: "Which model?",
      initialValue: list.models.includes(preset.defaultModel) ? preset.defaultModel : list.models[0],
      options: [...list.models.map((id) => ({ value: id, label: id })), { value: _TYPE_OWN, label: "type a model id myself" }],
      maxItems: 12,
    });
    if (p.isCancel(model)) return cancelled();
  } else model = _TYPE_OWN;
  if (model === _TYPE_OWN) {
    model = await p.text({
      message: "Model id",
      defaultValue: preset.defaultModel || undefined,
      placeholder: preset.defaultModel,
      validate: (value) => ((value ?? "").trim() || preset.defaultModel ? undefined : "a model id is required"),
    });
    if (p.isCancel(model)) return cancelled();
  }
  const chosen = String(model).trim() || preset.defaultModel;

  // A protocol forced for the previous provider would not fit this one: the preset decides again.
  const patch: Partial<ConfigFile> = { provider: preset.id, model: chosen, baseURL: baseURL !== preset.baseURL ? baseURL : undefined, protocol: undefined };
  if (apiKey !== undefined) patch.apiKey = apiKey;
  writeConfigPatch(patch);
  p.outro(`${preset.label} configured with ${chosen}\nsaved to ${paths.config()}`);
  return { preset, model: chosen, configPath: paths.config() };
}
