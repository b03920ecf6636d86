/**
 * The secrets plugin: refuses writes (create, edit, patch, move, delete) to credential files, so
 * the model tells the user what belongs there instead. Names are compared case-insensitively.
 * Reading secrets is not its business: the default permission rules deny reads of env files
 * and keys.
 */
import type { Plugin } from "../lib/plugins.ts";
import { pathSegments, writePaths } from "../lib/write-paths.ts";

export interface SecretRule {
  why: string;
  /** `name` is the last segment, `folders` the ones before it; both lower-cased. */
  matches(name: string, folders: readonly string[]): boolean;
}

const _CREDENTIAL_FILES = new Set([".npmrc", ".pypirc", ".netrc", ".pgpass"]);

export const SECRET_RULES: readonly SecretRule[] = [
  { why: "an env file", matches: (name) => name === ".env" || (name.startsWith(".env.") && name !== ".env.example") },
  { why: "a key or certificate", matches: (name) => /\.(?:pem|key|p12|pfx|jks|keystore)$/.test(name) },
  { why: "an SSH key", matches: (name) => /^id_(?:rsa|ed25519|ecdsa|dsa)(?:\.pub)?$/.test(name) },
  { why: "a registry or database credential file", matches: (name) => _CREDENTIAL_FILES.has(name) },
  { why: "a credentials file", matches: (name) => /^(?:credentials|secrets?)\.(?:json|ya?ml|toml|ini)$/.test(name) },
  { why: "a file in the AWS credentials folder", matches: (_name, folders) => folders.includes(".aws") },
  { why: "a file in the SSH folder", matches: (_name, folders) => folders.includes(".ssh") },
  { why: "a file in the GnuPG keyring folder", matches: (_name, folders) => folders.includes(".gnupg") },
];

/** Why writing `path` is refused, or undefined when it is not a credential path. */
export function secretReason(path: string, cwd?: string): string | undefined {
  const segments = pathSegments(path, cwd).map((segment) => segment.toLowerCase());
  const name = segments.at(-1);
  if (name === undefined) return undefined;
  return SECRET_RULES.find((rule) => rule.matches(name, segments.slice(0, -1)))?.why;
}

export function createSecretsPlugin(): Plugin {
  return {
    name: "secrets",
    description: "refuses writes to credential files (.env, keys, SSH and cloud credentials)",
    beforeToolCall({ toolName, input, cwd }) {
      for (const path of writePaths(toolName, input)) {
        const why = secretReason(path, cwd);
        if (why) return `refusing to write ${path} (${why}). Tell the user what to put there and let them write it.`;
      }
      return undefined;
    },
  };
}
