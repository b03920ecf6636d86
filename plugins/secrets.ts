/**
 * The secrets plugin: refuses writes (create, edit, patch, move, delete) to files the secrets
 * classifier flags (lib/secrets/classify.ts: env files, private keys, package-manager, netrc and
 * cloud credentials), so the model tells the user what belongs there instead. It judges the paths
 * every `write` tool declares (ToolDefinition.paths, folders expanded, normalised by the gate).
 * Reads of the same files are the gate's business: they ask (lib/extensions/gate.ts).
 */
import type { Plugin } from "../lib/extension-api/plugin-api.ts";
import { classifySecretPath } from "../lib/secrets/classify.ts";

/** Why writing `path` is refused, or undefined when it is not a credential path. */
export function secretReason(path: string, cwd?: string): string | undefined {
  return classifySecretPath(path, cwd);
}

export function createSecretsPlugin(): Plugin {
  return {
    name: "secrets",
    description: "refuses writes to credential files (.env, keys, SSH and cloud credentials)",
    beforeToolCall({ effect, paths, cwd }) {
      if (effect !== "write") return undefined;
      for (const path of paths ?? []) {
        const why = secretReason(path, cwd);
        if (why) return `refusing to write ${path} (${why}). Tell the user what to put there and let them write it.`;
      }
      return undefined;
    },
  };
}
