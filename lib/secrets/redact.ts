/**
 * The redactor: finds secrets in text and replaces each with `<redacted:kind>`.
 *
 * Contract:
 * - `redactText` is pure and idempotent: redacting its output changes nothing, and text without a
 *   secret comes back as the same string.
 * - `redactValue` returns a copy of a JSON-shaped value with every string redacted, sharing every
 *   subtree that had nothing to redact (so an untouched value comes back as itself). A string
 *   under a secret-looking key (`apiKey`, `token`, `DB_PASSWORD`) that looks random is replaced
 *   whole. Opaque provider fields (signatures, encrypted reasoning) and attached images
 *   (`{mediaType: "image/…", data}`) are never touched, and a part
 *   whose `text` was redacted drops its `signature`: a signed text goes back to the provider
 *   unmodified or not at all.
 * - What it finds: every preset's key shape (lib/providers/presets.ts), AWS access key ids and
 *   secret keys, GitHub, GitLab, Slack, npm, Stripe, Hugging Face (`hf_`), PyPI (`pypi-`) and
 *   SendGrid (`SG.…`) tokens, JWTs, private key blocks, passwords in URLs, bearer tokens and HTTP
 *   Basic credentials in any case, Docker config `"auth"` values, and random-looking values
 *   assigned to names ending in KEY, TOKEN, SECRET, PASSWORD, PASSWD, PWD, PASSPHRASE or
 *   CREDENTIALS (`password: DB_PASSWORD=…` redacts the value, not the name).
 * - Cut after, never before: a caller that shortens text (titles, excerpts, snippets) redacts the
 *   whole text first, so a cut cannot leave a key's prefix too short for its shape to match.
 * - What it leaves alone, by design: git hashes, UUIDs, base64 data (images, integrity hashes
 *   `sha512-…`), and short or word-like values even under a secret name (`KEY_NAME = "x"`,
 *   `API_KEY = process.env.API_KEY`, `token: "<your token>"`).
 */
import { PRESETS } from "../providers/presets.ts";

export interface RedactResult {
  text: string;
  /** The kinds found, each once, in the order first found; empty when nothing was redacted. */
  kinds: string[];
}

/** Characters that continue a token: a shape only matches between two characters outside this set. */
const _TOKEN_CHAR = "A-Za-z0-9_\\-";

function _shape(kind: string, pattern: string, hints: readonly string[] = _leadingLiteral(pattern)): _Shape {
  return new _Shape(kind, pattern, hints);
}

/**
 * A whole-token shape. Its regex is made the first time a text holds one of its hints: most texts
 * hold none of most shapes' literals, and making two dozen regexes at load was about half a
 * millisecond of a compiled binary's start, before its first request (which redacts only the prompt).
 */
class _Shape {
  #regex: RegExp | undefined;

  constructor(
    readonly kind: string,
    private readonly pattern: string,
    /** Literals one of which every match contains; none means the shape is always run. */
    readonly hints: readonly string[],
  ) {}

  get regex(): RegExp {
    this.#regex ??= new RegExp(`(?<![${_TOKEN_CHAR}])(?:${this.pattern})(?![${_TOKEN_CHAR}])`, "g");
    return this.#regex;
  }
}

/** The literal a pattern without a top-level `|` starts with (`sk-ant-` of `sk-ant-[a-z]+…`); none otherwise. */
function _leadingLiteral(pattern: string): string[] {
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "\\") i++;
    else if (char === "(" || char === "[") depth++;
    else if (char === ")" || char === "]") depth--;
    else if (char === "|" && depth === 0) return [];
  }
  const literal = /^[A-Za-z0-9_-]+/.exec(pattern)?.[0] ?? "";
  // A quantifier after the literal applies to its last character only.
  const quantified = /^[?*{]/.test(pattern.slice(literal.length));
  const kept = quantified ? literal.slice(0, -1) : literal;
  return kept.length === 0 ? [] : [kept];
}

const _PRIVATE_KEY = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END \1PRIVATE KEY\2-----|[A-Za-z0-9+/=\s\\:,.-]*)/g;

const _AWS_PREFIXES = ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"];
const _GITLAB_KINDS = ["pat", "dt", "rt", "ptt", "soat", "cbt", "imt", "oas", "ft", "ffct", "agent"];

/** Whole-token shapes, most specific first. */
const _SHAPES: readonly _Shape[] = [
  _shape("jwt", "eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{16,}"),
  ...PRESETS.flatMap((preset) => (preset.keyShape ? [_shape(preset.keyShape.kind, preset.keyShape.pattern)] : [])),
  _shape("aws-access-key-id", `(?:${_AWS_PREFIXES.join("|")})[A-Z0-9]{16}`, _AWS_PREFIXES),
  _shape("github-token", "gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{40,255}", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]),
  _shape(
    "gitlab-token",
    `gl(?:${_GITLAB_KINDS.join("|")})-[A-Za-z0-9_-]{20,}`,
    _GITLAB_KINDS.map((kind) => `gl${kind}-`),
  ),
  _shape("slack-token", "xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\\d-[A-Za-z0-9-]{10,}", ["xox", "xapp-"]),
  _shape("slack-webhook", "https://hooks\\.slack\\.com/services/[A-Za-z0-9/_]{20,}", ["hooks.slack.com"]),
  _shape("npm-token", "npm_[A-Za-z0-9]{36}"),
  _shape("stripe-key", "(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}", ["_live_", "_test_", "whsec_"]),
  _shape("huggingface-token", "hf_[A-Za-z0-9]{30,}"),
  _shape("pypi-token", "pypi-[A-Za-z0-9_-]{50,}"),
  _shape("sendgrid-key", "SG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{32,64}", ["SG."]),
];

/** `aws_secret_access_key = …`, `"SecretAccessKey": "…"`: the 40-character value only. */
const _AWS_SECRET = /((?:aws)?_?secret_?access_?key\\?["']?\s*(?:=|:)\s*\\?["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi;
/** `scheme://user:password@host`: the password only. */
const _URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"'<>]+:)([^\s@/"'<>]+)(@)/gi;
const _BEARER = /(\bBearer\s+)([A-Za-z0-9._~+/-]{16,}=*)/gi;
/** `Authorization: Basic <base64 of user:password>`, in any case. */
const _BASIC = /(\bBasic\s+)([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi;
/** Docker's `"auth": "<base64 of user:password>"` (config.json, `auths`), quotes optionally escaped. */
const _DOCKER_AUTH = /(\\?"(?:auth|identitytoken|registrytoken)\\?"\s*:\s*\\?")([A-Za-z0-9+/_.-]{8,}={0,2})(?=\\?")/gi;
/**
 * `NAME = value`, `NAME: value`, `"name": "value"`, with the quotes optionally backslash-escaped
 * (JSON inside a JSON string). Group 2 is the name, group 4 the value.
 */
const _ASSIGNMENT = /(?<![A-Za-z0-9_$])(\\?["'`]?)([A-Za-z_][A-Za-z0-9_.-]*)\1[ \t]*(?:=|:=|:|=>)[ \t]*(\\?["'`]?)([^\s"'`\\,;(){}[\]<>=]+=*)/g;

const _SECRET_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|PASSPHRASE|CREDENTIALS?)$/;
/**
 * A necessary condition for `_redactAssignments` to change anything, tested once per text: a name
 * that normalises to a secret name ends in one of these words in some case, and is followed by
 * the assignment's closing quote, blanks and operator. Most text has none, and then the
 * per-assignment scan (the redactor's costliest step) is skipped.
 */
const _SECRET_ASSIGNMENT_HINT = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|PASSPHRASE|CREDENTIALS?)\\?["'`]?[ \t]*[=:]/i;
const _PASSWORD_NAME = /(?:PASSWORD|PASSWD|PWD|PASSPHRASE)$/;

/** True when a variable or field named `name` holds a secret by convention (`apiKey`, `DB_PASSWORD`). */
export function isSecretName(name: string): boolean {
  return _SECRET_NAME.test(_normalizeName(name));
}

function _normalizeName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[.-]/g, "_")
    .toUpperCase();
}

/**
 * True when `value` looks like a secret rather than a word, a reference or a placeholder: long
 * enough (16, or 8 for passwords), at least two character classes, and at least 3 bits of
 * entropy per character (2.5 for passwords).
 */
export function isSecretLikeValue(value: string, options: { password?: boolean } = {}): boolean {
  const password = options.password ?? false;
  if (value.length < (password ? 8 : 16) || value.length > 1024) return false;
  if (/^(?:\$|%|\{\{|<|process\.env|env\.|os\.environ)/i.test(value)) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false;
  if (/^[a-z]+(?:[_-][a-z]+)*$/.test(value) || /^[A-Z]+(?:_[A-Z]+)*$/.test(value)) return false;
  if (/^(.)\1*$/.test(value) || /^(?:x{3,}|your|example|placeholder|changeme|dummy|redacted)/i.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  if (classes < 2) return false;
  return _entropy(value) >= (password ? 2.5 : 3);
}

function _entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

export function placeholderFor(kind: string): string {
  return `<redacted:${kind}>`;
}

/** Redacts every secret in `text`. */
export function redactText(text: string): RedactResult {
  return _redact(text, true);
}

/**
 * `redactText` without its pre-checks (each shape's literals, the words `secret`, `bearer` and
 * `basic`): every regex runs over every text. The same result by contract; the reference the
 * pre-checks are tested against.
 */
export function redactTextByEveryShape(text: string): RedactResult {
  return _redact(text, false);
}

function _redact(text: string, precheck: boolean): RedactResult {
  if (text.length < 8) return { text, kinds: [] };
  const kinds: string[] = [];
  const note = (kind: string): string => {
    if (!kinds.includes(kind)) kinds.push(kind);
    return placeholderFor(kind);
  };
  let out = text;
  if (out.includes("PRIVATE KEY")) out = out.replace(_PRIVATE_KEY, () => note("private-key"));
  for (const shape of _SHAPES) {
    if (precheck && shape.hints.length > 0 && !shape.hints.some((hint) => out.includes(hint))) continue;
    out = out.replace(shape.regex, () => note(shape.kind));
  }
  const words = precheck ? _wordsIn(out) : _EVERY_WORD;
  if (words.secret) out = out.replace(_AWS_SECRET, (_all, head: string) => head + note("aws-secret-key"));
  if (out.includes("://")) {
    out = out.replace(_URL_PASSWORD, (all, head: string, password: string, at: string) =>
      /^(?:\$|<|\*+$|\{)/.test(password) ? all : head + note("url-password") + at,
    );
  }
  if (words.bearer) out = out.replace(_BEARER, (all, head: string, token: string) => (isSecretLikeValue(token) ? head + note("bearer-token") : all));
  if (words.basic) out = out.replace(_BASIC, (all, head: string, token: string) => (_isBasicCredential(token) ? head + note("basic-auth") : all));
  if (/auth|token/i.test(out)) out = out.replace(_DOCKER_AUTH, (_all, head: string) => head + note("docker-auth"));
  if (_SECRET_ASSIGNMENT_HINT.test(out)) out = _redactAssignments(out, note);
  return kinds.length === 0 ? { text, kinds } : { text: out, kinds };
}

interface _Words {
  secret: boolean;
  bearer: boolean;
  basic: boolean;
}
const _EVERY_WORD: _Words = { secret: true, bearer: true, basic: true };
/** The words `_AWS_SECRET`, `_BEARER` and `_BASIC` each need, in any case: one scan for the three. */
const _WORDS = /secret|bearer|basic/gi;

function _wordsIn(text: string): _Words {
  const words = { secret: false, bearer: false, basic: false };
  for (const match of text.matchAll(_WORDS)) words[match[0].toLowerCase() as keyof _Words] = true;
  return words;
}

/** A Basic credential is base64 of `user:password`; prose such as "Basic authentication" is not. */
function _isBasicCredential(token: string): boolean {
  if (token.length % 4 !== 0 && !token.endsWith("=")) return /[0-9+/]/.test(token) && isSecretLikeValue(token);
  const decoded = Buffer.from(token, "base64").toString("latin1");
  return decoded.includes(":") && /^[\x20-\x7e]+$/.test(decoded);
}

/**
 * Walks the assignments by hand: when a name is not a secret name, the scan resumes at its value,
 * which may itself start the next assignment (`"output": "API_KEY=…"`).
 */
function _redactAssignments(text: string, note: (kind: string) => string): string {
  _ASSIGNMENT.lastIndex = 0;
  let out = "";
  let done = 0;
  for (let match = _ASSIGNMENT.exec(text); match; match = _ASSIGNMENT.exec(text)) {
    const [all, , name, , value] = match as unknown as [string, string, string, string, string];
    const valueStart = match.index + all.length - value.length;
    const normalized = _normalizeName(name);
    const password = _PASSWORD_NAME.test(normalized);
    // `password: DB_PASSWORD=v`: the "value" is the next assignment's name; that assignment is the one to judge.
    const startsAssignment = value.endsWith("=") && /[^\s"'`,;)}\]]/.test(text[valueStart + value.length] ?? " ");
    if (startsAssignment || !_SECRET_NAME.test(normalized) || !isSecretLikeValue(value, { password })) {
      _ASSIGNMENT.lastIndex = valueStart;
      continue;
    }
    out += text.slice(done, valueStart) + note(password ? "password" : "secret");
    done = valueStart + value.length;
  }
  return done === 0 ? text : out + text.slice(done);
}

/**
 * Sessions are rewritten whole after every step, so the same strings are redacted again and
 * again: they are remembered by content (engines cache a string's hash) up to a bound, so a later
 * save of a growing session runs the shapes only over the strings it has not seen. Keyed by
 * content, not by the object that holds it: a message changed in place yields a new string, which
 * misses and is redacted.
 */
const _CACHE_MIN_LENGTH = 8;
/** Characters of source text held at most (the redacted copies are usually the same strings). */
const _CACHE_CHARS = 8_000_000;
const _cache = new Map<string, string>();
let _cachedChars = 0;

/**
 * What the stores write most: ids (a lowercase UUID) and times (ISO 8601 in UTC, `toISOString()`).
 * No shape matches one (each needs a prefix, a word or an operator these lack; tested against
 * `redactTextByEveryShape`), so they skip the scan. A secret-named field holding one was judged by
 * its key before.
 */
const _ID_OR_TIME = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{3})?Z)$/;

function _redactCached(text: string): string {
  if ((text.length === 36 || text.length === 24 || text.length === 20) && _ID_OR_TIME.test(text)) return text;
  if (text.length < _CACHE_MIN_LENGTH || text.length > _CACHE_CHARS / 8) return redactText(text).text;
  const known = _cache.get(text);
  if (known !== undefined) return known;
  const redacted = redactText(text).text;
  while (_cachedChars + text.length > _CACHE_CHARS) {
    const oldest = _cache.keys().next().value!;
    _cache.delete(oldest);
    _cachedChars -= oldest.length;
  }
  _cache.set(text, redacted);
  _cachedChars += text.length;
  return redacted;
}

/** What a field's name says of its value, remembered per name: documents repeat the same few keys. */
const _keyKinds = new Map<string, "password" | "secret" | "">();

function _keyKind(key: string): "password" | "secret" | "" {
  let kind = _keyKinds.get(key);
  if (kind === undefined) {
    const normalized = _normalizeName(key);
    kind = !_SECRET_NAME.test(normalized) ? "" : _PASSWORD_NAME.test(normalized) ? "password" : "secret";
    if (_keyKinds.size >= 10_000) _keyKinds.clear();
    _keyKinds.set(key, kind);
  }
  return kind;
}

/** Fields that hold opaque provider data, replayed byte for byte and never shown to anyone. */
const _OPAQUE_KEYS = new Set(["signature", "redactedData", "encryptedContent", "extraContent"]);

/** A copy of `value` with every secret redacted; unchanged subtrees are shared, not copied. */
export function redactValue<T>(value: T): T {
  return _redactAny(value, undefined) as T;
}

function _redactAny(value: unknown, key: string | undefined): unknown {
  if (typeof value === "string") {
    if (key !== undefined && /^(?:auth|identitytoken|registrytoken)$/i.test(key) && /^[A-Za-z0-9+/_.-]{8,}={0,2}$/.test(value))
      return placeholderFor("docker-auth");
    const name = key === undefined ? undefined : _keyKind(key);
    if (name && isSecretLikeValue(value, { password: name === "password" })) return placeholderFor(name);
    return _redactCached(value);
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = _redactAny(value[i], undefined);
      if (next !== value[i]) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === "object") {
    const source = value as Record<string, unknown>;
    if (_isImage(source)) return value;
    let copy: Record<string, unknown> | undefined;
    for (const [field, inner] of Object.entries(source)) {
      if (_OPAQUE_KEYS.has(field)) continue;
      const next = _redactAny(inner, field);
      if (next !== inner) (copy ??= { ...source })[field] = next;
    }
    if (copy && copy.text !== source.text && "signature" in copy) delete copy.signature;
    return copy ?? value;
  }
  return value;
}

/** An image attached to a user message (lib/messages.ts): its base64 is bytes, not text, and stays as is. */
function _isImage(value: Record<string, unknown>): boolean {
  return typeof value.mediaType === "string" && value.mediaType.startsWith("image/") && typeof value.data === "string";
}

/** The kinds of the placeholders in `value` (any JSON-shaped value), each once; empty when none. */
export function findPlaceholderKinds(value: unknown): string[] {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return [...new Set(Array.from(text.matchAll(/<redacted:([a-z0-9-]+)>/g), (match) => match[1]!))];
}
