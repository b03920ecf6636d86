/**
 * The one secrets classifier: which files may hold credentials, for reads and writes alike.
 *
 * `classifySecretPath` looks at how a path is spelled (every spelling of the same path gets the
 * same answer: `./a/../.env`, `C:\x\.ENV`, `/abs/ws/.env`); `classifySecretContent` at what a
 * text holds (a PEM or OpenSSH private key block, a GCP service-account key, AWS secret keys);
 * `classifySecretFile` at both, for a file on disk, through its real path too (a link named
 * `notes.txt` that points at `.env` is an env file). Each returns why, in a few words, or
 * undefined. Names compare case-insensitively (`.ENV` opens `.env` on macOS and Windows).
 */
import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, posix, relative } from "node:path";
import { STATE_DIR_NAME } from "../platform/paths.ts";

/** How much of a file `classifySecretFile` reads to look at its content. */
export const SECRET_SNIFF_BYTES = 256 * 1024;

interface _NameRule {
  why: string;
  /** `name` is the last segment, `folders` the ones before it; all lower-cased. */
  matches(name: string, folders: readonly string[]): boolean;
}

/** What follows `.env` (after `.`, `_` or `-`) in a template that holds no secrets: `.env.example`, `.env_sample`. */
const _ENV_TEMPLATE = /(?:^|[._-])(?:example|sample|template|dist|defaults?)$/;
const _KEY_EXTENSIONS = /\.(?:pem|key|p12|pfx|jks|keystore|ppk|kdbx)$/;
const _PACKAGE_CREDENTIALS = new Set([
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  ".netrc",
  "_netrc",
  ".pgpass",
  ".git-credentials",
  ".gitcookies",
  ".htpasswd",
  ".terraformrc",
  "terraform.rc",
  "credentials.tfrc.json",
]);
/** Files that hold a tool's token or password wherever they are: database clients, S3, Vault, Composer, Docker. */
const _TOOL_CREDENTIALS = new Set([
  ".my.cnf",
  ".mylogin.cnf",
  ".s3cfg",
  ".passwd-s3fs",
  ".boto",
  ".vault-token",
  "auth.json",
  ".dockercfg",
  ".databrickscfg",
  "rclone.conf",
]);
const _CLOUD_FOLDERS = new Set([".aws", ".azure", ".ssh", ".gnupg", ".kube"]);

/** Folder pairs whose files are credentials: `.config/gcloud/*`, `.docker/config.json`… */
const _inPair = (folders: readonly string[], first: string, second: string) => folders.some((folder, i) => folder === first && folders[i + 1] === second);

const _NAME_RULES: readonly _NameRule[] = [
  {
    why: "an env file",
    matches: (name, folders) =>
      !_ENV_TEMPLATE.test(name) && (name === ".envrc" || name.endsWith(".env") || /\.env[._-]/.test(name) || folders.includes(".envs")),
  },
  { why: "a private key or keystore", matches: (name) => _KEY_EXTENSIONS.test(name) },
  { why: "an SSH private key", matches: (name) => /^id_[a-z0-9_-]+$/.test(name) },
  {
    why: "a package-manager or netrc credential file",
    matches: (name, folders) =>
      _PACKAGE_CREDENTIALS.has(name) || (/^credentials(?:\.toml)?$/.test(name) && (folders.at(-1) === ".cargo" || folders.at(-1) === ".gem")),
  },
  {
    why: "a cloud or cluster credential file",
    matches: (name, folders) =>
      (folders.some((folder) => _CLOUD_FOLDERS.has(folder)) && !name.endsWith(".pub") && name !== "known_hosts") ||
      _inPair(folders, ".config", "gcloud") ||
      name === "kubeconfig" ||
      (name === "config.json" && folders.at(-1) === ".docker") ||
      name === "application_default_credentials.json" ||
      name.endsWith(".publishsettings") ||
      /^(?:service[-_]?account|client[-_]secret|gcp[-_]key|sa[-_]key)[^/]*\.json$/.test(name),
  },
  {
    why: "a tool's credential file",
    matches: (name, folders) =>
      _TOOL_CREDENTIALS.has(name) ||
      (name === "hosts.yml" && _inPair(folders, ".config", "gh")) ||
      (name === "hub" && folders.at(-1) === ".config") ||
      (/^settings(?:-security)?\.xml$/.test(name) && folders.at(-1) === ".m2") ||
      (name === "gradle.properties" && folders.at(-1) === ".gradle"),
  },
  { why: "a Terraform state file", matches: (name) => /\.tfstate(?:\.backup)?$/.test(name) },
  { why: "shiro's config file (it may hold the provider key)", matches: (name, folders) => name === "config.json" && folders.at(-1) === STATE_DIR_NAME },
  { why: "a credentials file", matches: (name) => /^(?:credentials?|secrets?)(?:\.(?:json|ya?ml|toml|ini|xml|txt|conf))?$/.test(name) },
];

const _CONTENT_RULES: readonly (readonly [why: string, shape: RegExp])[] = [
  ["a private key", /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  ["a cloud service-account key", /"type"\s*:\s*"service_account"[\s\S]*"private_key"|"private_key"[\s\S]*"type"\s*:\s*"service_account"/],
  ["an AWS secret key", /\baws_secret_access_key\s*[=:]/i],
];

/**
 * The segments of `path` as seen from `root`, lower-cased: split at `/` and `\`, normalised, and
 * relative to the workspace when it lies inside (so the folders holding the workspace never count).
 */
export function secretSegments(path: string, root?: string): string[] {
  let shown = path.replaceAll("\\", "/");
  if (root && isAbsolute(shown)) {
    const inside = relative(root, shown);
    if (inside && !inside.startsWith("..") && !isAbsolute(inside)) shown = inside;
  }
  return posix
    .normalize(shown)
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".")
    .map((segment) => segment.toLowerCase());
}

/** Why the path, as spelled, may hold secrets; undefined when its name says nothing. */
export function classifySecretPath(path: string, root?: string): string | undefined {
  const segments = secretSegments(path, root);
  const name = segments.at(-1);
  if (name === undefined) return undefined;
  const folders = segments.slice(0, -1);
  return _NAME_RULES.find((rule) => rule.matches(name, folders))?.why;
}

/** Why the text may hold secrets (a private key block, a service-account key); undefined otherwise. */
export function classifySecretContent(text: string): string | undefined {
  return _CONTENT_RULES.find(([, shape]) => shape.test(text))?.[0];
}

/**
 * Why the file at `abs` may hold secrets: by its name, by its real path's name, or by its first
 * SECRET_SNIFF_BYTES. A file that cannot be opened is judged by its names alone.
 */
export function classifySecretFile(abs: string, root?: string): string | undefined {
  const byName = classifySecretPath(abs, root);
  if (byName) return byName;
  let real: string | undefined;
  try {
    real = realpathSync(abs);
  } catch {
    return undefined;
  }
  const byRealName = classifySecretPath(real, root ? _realOr(root) : undefined);
  if (byRealName) return byRealName;
  return classifySecretContent(_readHead(real));
}

function _realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function _readHead(abs: string): string {
  let fd: number | undefined;
  try {
    // Opening a named pipe would wait for a writer; only regular files are read.
    const stat = statSync(abs);
    if (!stat.isFile()) return "";
    fd = openSync(abs, "r");
    // Sized to the file: most files are far smaller than the sniff window.
    const size = Math.min(SECRET_SNIFF_BYTES, stat.size);
    const buffer = Buffer.allocUnsafe(size);
    const read = readSync(fd, buffer, 0, size, 0);
    return buffer.subarray(0, read).toString("latin1");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
