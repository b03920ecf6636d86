/**
 * The plugin host: holds the active plugins, builtin ones (plugins/, enabled by config `plugins`
 * in that order) first, then installed ones (registry manifests). Plugins are code shipped in the
 * binary or declarative manifests; nothing is ever loaded from disk or a URL as code. The
 * contracts it keeps are written on the API (lib/extension-api/plugin-api.ts).
 */
import type {
  InstalledPluginManifest,
  Plugin,
  PluginContext,
  PluginFactory,
  PluginFailure,
  PluginHost,
  ToolCallQuestion,
  ToolCallVerdict,
} from "../extension-api/plugin-api.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { BUILTIN_PLUGINS } from "../../plugins/index.ts";

export const DEFAULT_PLUGINS: readonly string[] = ["guard", "secrets", "protect", "time"];

export interface PluginHostOptions {
  cwd: string;
  /** Builtin names in the order they run; default DEFAULT_PLUGINS. */
  enabled?: readonly string[];
  builtins?: Readonly<Record<string, PluginFactory>>;
  /** Where plugins write to the terminal (the bell): the front end's one writer, passed down. */
  writeStderr: (text: string) => void;
  wrapCommand?: (argv: readonly string[]) => string[];
}

export function createPluginHost(options: PluginHostOptions): PluginHost {
  const context: PluginContext = {
    cwd: options.cwd,
    writeStderr: options.writeStderr,
    ...(options.wrapCommand ? { wrapCommand: options.wrapCommand } : {}),
  };
  const builtins: Readonly<Record<string, PluginFactory>> = options.builtins ?? BUILTIN_PLUGINS;
  const host = _createHost(false);
  const seen = new Set<string>();
  for (const name of options.enabled ?? DEFAULT_PLUGINS) {
    if (seen.has(name)) continue;
    seen.add(name);
    const factory = Object.hasOwn(builtins, name) ? builtins[name] : undefined;
    if (!factory) {
      host.fail(name, "no such plugin");
      continue;
    }
    try {
      host.add(factory(context), false);
    } catch (error) {
      host.fail(name, _message(error));
    }
  }
  return host.api;
}

/** The host of `--no-plugins`: empty, and it stays empty. */
export function createDisabledPluginHost(): PluginHost {
  return _createHost(true).api;
}

/** Turns a manifest into a guard plugin. Throws `invalid pattern "<p>": <why>` for a bad regex. */
export function compileInstalledPlugin(manifest: InstalledPluginManifest): Plugin {
  const rules = manifest.deny.map((rule) => ({
    tools: new Set(rule.tools),
    path: rule.pathPattern === undefined ? undefined : _compile(rule.pathPattern),
    command: rule.commandPattern === undefined ? undefined : _compile(rule.commandPattern),
    reason: rule.reason,
  }));
  return {
    name: manifest.name,
    description: `${manifest.description} (installed)`,
    appendix: manifest.appendix,
    beforeToolCall({ toolName, input, paths = [] }) {
      const fields = input !== null && typeof input === "object" ? (input as Record<string, unknown>) : {};
      const command = typeof fields.command === "string" ? fields.command : undefined;
      for (const rule of rules) {
        if (!rule.tools.has(toolName)) continue;
        if (rule.path && paths.some((path) => rule.path!.test(path))) return rule.reason;
        if (rule.command && command !== undefined && rule.command.test(command)) return rule.reason;
      }
      return undefined;
    },
  };
}

function _compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "i");
  } catch (error) {
    throw new Error(`invalid pattern "${pattern}": ${_message(error).replace(/^Invalid regular expression: /, "")}`);
  }
}

function _message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function _createHost(disabled: boolean) {
  const loaded: { plugin: Plugin; installed: boolean }[] = [];
  const failed: PluginFailure[] = [];
  const has = (name: string) => loaded.some((entry) => entry.plugin.name === name);
  const add = (plugin: Plugin, installed: boolean) => {
    loaded.push({ plugin, installed });
  };
  const fail = (name: string, error: string) => {
    failed.push({ name, error });
  };
  const api: PluginHost = {
    disabled,
    active: () => loaded.map(({ plugin, installed }) => ({ name: plugin.name, description: plugin.description, installed })),
    failures: () => [...failed],
    loadInstalled(manifests) {
      if (disabled) return;
      for (const manifest of manifests) {
        if (has(manifest.name)) {
          fail(manifest.name, `a plugin named "${manifest.name}" is already active`);
          continue;
        }
        try {
          add(compileInstalledPlugin(manifest), true);
        } catch (error) {
          fail(manifest.name, _message(error));
        }
      }
    },
    async checkToolCall(call) {
      let question: ToolCallQuestion | undefined;
      for (const { plugin } of loaded) {
        if (!plugin.beforeToolCall) continue;
        let verdict: ToolCallVerdict | undefined;
        try {
          verdict = await plugin.beforeToolCall(call);
        } catch (error) {
          return `Blocked by the ${plugin.name} plugin: its check failed (${_message(error)})`;
        }
        if (typeof verdict === "string") return `Blocked by the ${plugin.name} plugin: ${verdict || "no reason given"}`;
        if (verdict && !question) question = { ask: `The ${plugin.name} plugin asks: ${verdict.ask || "no reason given"}` };
      }
      return question;
    },
    async runAfterTurn() {
      const errors: PluginFailure[] = [];
      for (const { plugin } of loaded) {
        if (!plugin.afterTurn) continue;
        try {
          await plugin.afterTurn();
        } catch (error) {
          errors.push({ name: plugin.name, error: _message(error) });
        }
      }
      return errors;
    },
    tools() {
      const byName = new Map<string, ToolDefinition>();
      for (const { plugin } of loaded) {
        const auto = new Set(plugin.autoApprove ?? []);
        for (const tool of plugin.tools ?? []) {
          if (byName.has(tool.name)) continue;
          // `autoApprove` is the plugin's way to declare `decision: "allow"`; it names only its own tools.
          byName.set(tool.name, tool.decision === undefined && auto.has(tool.name) ? { ...tool, decision: "allow" } : tool);
        }
      }
      return [...byName.values()];
    },
    appendices: () => loaded.flatMap(({ plugin }) => (plugin.appendix ? [plugin.appendix] : [])),
  };
  return { api, has, add, fail };
}
