/**
 * The redactor's tables: every secret kind is replaced by its placeholder in every setting it
 * shows up in, and the look-alikes a coding session is full of (hashes, ids, base64, code) are not.
 */
import { describe, expect, test } from "bun:test";
import { createHash, randomUUID } from "node:crypto";
import { PRESETS } from "../../lib/providers/presets.ts";
import { isSecretName, redactText, redactValue } from "../../lib/secrets/redact.ts";
import { buildFakeSecrets, contextOf, createFaker } from "../fixtures/fake-secrets.ts";
import { deriveTitle } from "../../lib/store/session-record.ts";
import { cleanSummary } from "../../lib/agent/episode-recorder.ts";
import { shortLine } from "../../lib/store/memory-index.ts";

const SECRETS = buildFakeSecrets();

describe("every kind is redacted", () => {
  test.each(SECRETS.map((secret) => [secret.kind, secret] as const))("%s", (kind, secret) => {
    const context = contextOf(secret);
    const settings = [context, `before ${context} after`, `line one\n${context}\nline three`, JSON.stringify({ output: context }), `"${context}",`];
    for (const text of settings) {
      const result = redactText(text);
      expect({ text, leaked: result.text.includes(secret.value) }).toEqual({ text, leaked: false });
      expect(result.kinds).toEqual([kind]);
      expect(result.text).toContain(`<redacted:${kind}>`);
    }
  });

  test("each preset with a key shape has a fake here", () => {
    const shaped = PRESETS.flatMap((preset) => (preset.keyShape ? [preset.keyShape.kind] : []));
    expect(shaped.filter((kind) => !SECRETS.some((secret) => secret.kind === kind))).toEqual([]);
  });

  test("only the value of an assignment goes; the name and the quotes stay", () => {
    const value = SECRETS.find((secret) => secret.kind === "secret")!.value;
    expect(redactText(`export GITHUB_TOKEN=${value}`).text).toBe("export GITHUB_TOKEN=<redacted:secret>");
    expect(redactText(`const apiKey = "${value}";`).text).toBe(`const apiKey = "<redacted:secret>";`);
    expect(redactText(`client_secret: '${value}'`).text).toBe("client_secret: '<redacted:secret>'");
    expect(redactText(`{\\"auth_token\\": \\"${value}\\"}`).text).toBe(`{\\"auth_token\\": \\"<redacted:secret>\\"}`);
    expect(redactText(`SECRET_KEY := ${value}`).text).toBe("SECRET_KEY := <redacted:secret>");
  });

  test("the names that count as secret names", () => {
    const names = [
      "API_KEY",
      "apiKey",
      "OPENAI_API_KEY",
      "aws_secret_access_key",
      "GITHUB_TOKEN",
      "authToken",
      "_authToken",
      "client-secret",
      "SECRET",
      "PASSWORD",
      "db.password",
      "MYSQL_PWD",
      "passphrase",
      "GOOGLE_CREDENTIALS",
    ];
    const others = ["KEY_NAME", "keyboard", "tokens", "secretary", "password_hint", "username", "integrity", "sha"];
    expect(names.filter((name) => !isSecretName(name))).toEqual([]);
    expect(others.filter((name) => isSecretName(name))).toEqual([]);
  });

  test("a private key block cut short (no END line) still goes", () => {
    const secret = SECRETS.find((s) => s.kind === "private-key")!;
    const cut = contextOf(secret).split("-----END")[0]!;
    expect(redactText(`head\n${cut}`).text).toBe("head\n<redacted:private-key>");
  });

  test("redaction is idempotent and reports every kind once", () => {
    const all = SECRETS.map(contextOf).join("\n");
    const once = redactText(all);
    expect(redactText(once.text)).toEqual({ text: once.text, kinds: [] });
    expect(new Set(once.kinds)).toEqual(new Set(SECRETS.map((secret) => secret.kind)));
    for (const secret of SECRETS) expect(once.text.includes(secret.value)).toBe(false);
  });
});

describe("look-alikes are left alone", () => {
  const pick = createFaker(0xbeef);
  const sha1 = createHash("sha1").update("commit").digest("hex");
  const sha256 = createHash("sha256").update("blob").digest("hex");
  const integrity = `sha512-${createHash("sha512").update("pkg").digest("base64")}`;
  const image = `data:image/png;base64,iVBORw0KGgo${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 600)}==`;
  const cases: [string, string][] = [
    ["a git sha", `commit ${sha1}`],
    ["a short sha and a range", `${sha1.slice(0, 7)}..${sha1.slice(0, 12)}`],
    ["a sha-256", `sha256:${sha256}`],
    ["a UUID", `session ${randomUUID()}`],
    ["a base64 image", image],
    ["a package-lock integrity hash", `"integrity": "${integrity}",`],
    ["an npm resolved URL", '"resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",'],
    ["a short constant", 'const KEY_NAME = "x";'],
    ["a reference to the environment", "const API_KEY = process.env.OPENAI_API_KEY;"],
    ["a shell expansion", 'export GITHUB_TOKEN="${GITHUB_TOKEN}"'],
    ["a placeholder", "OPENAI_API_KEY=<your key here>"],
    ["a template example", "API_KEY=your-api-key-goes-here"],
    ["a word-like value", "PRIMARY_KEY = user_account_identifier"],
    ["a masked value", "PASSWORD=********"],
    ["a key name in a sentence", "Set ANTHROPIC_API_KEY in your shell, then run shiro."],
    ["a function call", "const token = getToken(request);"],
    ["prose about tokens", "The tokenizer splits text into tokens: inputTokens: 1200, outputTokens: 300"],
    ["a URL without a password", "https://user@example.com/path?q=1"],
    ["a URL with a password placeholder", "postgres://app:${DB_PASSWORD}@db/app"],
    ["a task name with sk-", "the task-runner and disk-usage-report-generator-for-servers-and-things"],
    ["a CSS class", 'class="sk-spinner sk-fading-circle"'],
    ["a public key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb1E7xqJ0yZ user@host"],
    ["a Bearer of a word", "Authorization: Bearer token"],
    ["a bearer in prose", "a bearer of bad news, bearer bonds"],
    ["Basic auth in prose", "Basic authentication is configured; use HTTP basic auth"],
    ["a Basic word", "Authorization: Basic realm"],
    ["an hf_ library name", "pip install hf_transfer; from hf_hub import x"],
    ["a pypi- package", "pypi-simple-index and pypi-server"],
    ["an SG. look-alike", "SG.short.x and SG.module.name"],
    ["a Docker auth placeholder", '"auth": "none", "auth": true'],
    ["a label then a short word", "password: DB_PASSWORD"],
    ["a value starting with x that is a placeholder", "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxx"],
  ];
  test.each(cases)("%s", (_name, text) => {
    expect(redactText(text)).toEqual({ text, kinds: [] });
  });
});

describe("issue 20's cases", () => {
  test("a label then an assignment loses the assignment's value, not its name", () => {
    const value = SECRETS.filter((secret) => secret.kind === "password").at(-1)!.value;
    expect(redactText(`password: DB_PASSWORD=${value}`).text).toBe("password: DB_PASSWORD=<redacted:password>");
    expect(redactText("SECRET_KEY=Xk9mQ2vLp8Rw4TzB7nHs").text).toBe("SECRET_KEY=<redacted:secret>");
  });

  test("a Docker config's auth goes as a structured field too", () => {
    const auth = SECRETS.find((secret) => secret.kind === "docker-auth")!.value;
    expect(redactValue({ auths: { "registry.example.com": { auth } } })).toEqual({ auths: { "registry.example.com": { auth: "<redacted:docker-auth>" } } });
  });
});

describe("redaction comes before every cut", () => {
  const token = SECRETS.find((secret) => secret.kind === "github-token")!.value;
  const lead = "please deploy this with the token ";
  const prefixes = [4, 8, 12].map((n) => token.slice(0, n));

  test("a session title cut inside a key keeps no part of it", () => {
    for (const pad of [20, 22, 26]) {
      const title = deriveTitle(`${"x ".repeat(pad / 2)}${lead}${token} and more words after it`);
      expect({ pad, leaked: prefixes.filter((prefix) => title.includes(prefix)) }).toEqual({ pad, leaked: [] });
    }
  });

  test("episode summaries, digests' short lines and provider errors are redacted whole before the cut", () => {
    const long = `${"word ".repeat(96)}${lead}${token}`;
    for (const cut of [cleanSummary(long), shortLine(long, 500), shortLine(`${lead}${token}`, 40)])
      expect(prefixes.filter((prefix) => cut.includes(prefix))).toEqual([]);
  });
});

describe("redactValue", () => {
  const jwt = SECRETS.find((secret) => secret.kind === "jwt")!.value;
  const random = SECRETS.find((secret) => secret.kind === "secret")!.value;

  test("copies only what changes and never mutates the original", () => {
    const untouched = { a: [1, "plain"], b: { c: "text" } };
    const value = { keep: untouched, messages: [{ role: "user", content: `token ${jwt}` }], n: 3, ok: true, none: null };
    const snapshot = structuredClone(value);
    const redacted = redactValue(value);
    expect(value).toEqual(snapshot);
    expect(redacted).toEqual({ ...snapshot, messages: [{ role: "user", content: "token <redacted:jwt>" }] });
    expect(redacted.keep).toBe(untouched);
    expect(redactValue(untouched)).toBe(untouched);
  });

  test("a random value under a secret-named key goes whole; a word does not", () => {
    expect(redactValue({ input: { apiKey: random, password: "Tr0ub4dor&3x", keyName: random, token: "short" } })).toEqual({
      input: { apiKey: "<redacted:secret>", password: "<redacted:password>", keyName: random, token: "short" },
    });
  });

  test("opaque provider fields are kept; a signed text that changed loses its signature", () => {
    const opaque = `${jwt} AKIA${"Q".repeat(16)}`;
    const parts = [
      { type: "reasoning", text: `I read ${jwt}`, signature: "sig", protocol: "anthropic" },
      { type: "reasoning", text: "nothing secret", signature: "sig2", protocol: "anthropic" },
      { type: "reasoning", text: "", redactedData: opaque, encryptedContent: opaque, protocol: "anthropic" },
    ];
    expect(redactValue(parts) as unknown[]).toEqual([{ type: "reasoning", text: "I read <redacted:jwt>", protocol: "anthropic" }, parts[1]!, parts[2]!]);
  });
});
