/**
 * The redactor's pre-checks (each shape's literals; the words `secret`, `bearer`, `basic`) skip
 * only regexes that could not match: over every fake secret in every setting, over every prefix
 * a shape knows and over the look-alikes, redactText gives what running every regex gives; the ids
 * and times redactValue passes without a scan are ones no regex changes.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { redactText, redactTextByEveryShape, redactValue } from "../../lib/secrets/redact.ts";
import { buildFakeSecrets, contextOf, createFaker } from "../fixtures/fake-secrets.ts";

const pick = createFaker(0x24f3);
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** One value for each alternative a shape's pattern has, with the kind it is redacted as. */
const ALTERNATIVES: [string, string][] = [
  ...["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"].map((p): [string, string] => [
    "aws-access-key-id",
    p + pick(UPPER, 16),
  ]),
  ...["ghp_", "gho_", "ghu_", "ghs_", "ghr_"].map((p): [string, string] => ["github-token", p + pick(ALNUM, 36)]),
  ["github-token", `github_pat_${pick(ALNUM, 40)}`],
  ...["pat", "dt", "rt", "ptt", "soat", "cbt", "imt", "oas", "ft", "ffct", "agent"].map((k): [string, string] => ["gitlab-token", `gl${k}-${pick(ALNUM, 20)}`]),
  ...["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xapp-1-"].map((p): [string, string] => ["slack-token", p + pick(ALNUM, 12)]),
  ...["sk_live_", "sk_test_", "rk_live_", "rk_test_"].map((p): [string, string] => ["stripe-key", p + pick(ALNUM, 16)]),
  ["stripe-key", `whsec_${pick(ALNUM, 24)}`],
  ["openai-key", `sk-${pick(ALNUM, 48)}`],
  ["openai-key", `sk-svcacct-${pick(ALNUM, 32)}`],
  ["openai-key", `sk-admin-${pick(ALNUM, 32)}`],
];

const WORDS: [string, string][] = [
  ["aws-secret-key", `"SecretAccessKey": "${pick(ALNUM, 40)}"`],
  ["aws-secret-key", `AWS_SECRET_ACCESS_KEY=${pick(ALNUM, 40)}`],
  ["bearer-token", `Authorization: BEARER ${pick(ALNUM, 32)}`],
  ["bearer-token", `authorization: Bearer ${pick(ALNUM, 32)}`],
  ["basic-auth", `Authorization: BASIC ${Buffer.from(`me:${pick(ALNUM, 12)}`).toString("base64")}`],
];

function _settings(context: string): string[] {
  return [context, `before ${context} after`, `line one\n${context}\nline three`, JSON.stringify({ output: context }), `"${context}",`];
}

describe("with and without the pre-checks, the same result", () => {
  const secrets = buildFakeSecrets().map((secret): [string, string] => [secret.kind, contextOf(secret)]);
  test.each([...secrets, ...ALTERNATIVES, ...WORDS])("%s: %s", (kind, context) => {
    for (const text of _settings(context)) {
      const quick = redactText(text);
      expect(quick).toEqual(redactTextByEveryShape(text));
      expect(quick.kinds).toContain(kind);
    }
  });

  test("text with no candidate, and several secrets in one text", () => {
    const all = [...secrets, ...ALTERNATIVES, ...WORDS].map(([, context]) => context).join("\n");
    for (const text of ["hello there, how are you today?", "session 2f1c0a7e-3b9d-4c55-8e21-7d0b7a1f9c32 in /tmp/project", all]) {
      expect(redactText(text)).toEqual(redactTextByEveryShape(text));
    }
    expect(redactText(all).kinds.length).toBeGreaterThan(20);
  });
});

describe("ids and times, which redactValue passes without a scan", () => {
  const HEX = "0123456789abcdef";
  const uuid = () => `${pick(HEX, 8)}-${pick(HEX, 4)}-7${pick(HEX, 3)}-${pick("89ab", 1)}${pick(HEX, 3)}-${pick(HEX, 12)}`;
  const time = (at: number) => new Date(at).toISOString();

  test("no shape matches a lowercase UUID or an ISO time: every regex leaves them as they are", () => {
    const values = [
      ...Array.from({ length: 200 }, uuid),
      ...Array.from({ length: 200 }, (_, i) => time(i * 7_777_777_777)),
      "00000000-0000-0000-0000-000000000000",
    ];
    for (const value of values) {
      expect(redactTextByEveryShape(value)).toEqual({ text: value, kinds: [] });
      expect(redactValue({ id: value, at: value })).toEqual({ id: value, at: value });
    }
  });

  test("a secret-named field is judged by its key first: a random id there is still replaced", () => {
    const id = uuid();
    expect(redactValue({ token: id, apiKey: id })).toEqual({ token: "<redacted:secret>", apiKey: "<redacted:secret>" });
    // Only the whole string is passed: an id with more around it is scanned.
    expect(redactValue({ note: `${id} sk-${pick(ALNUM, 48)}` }).note).toContain("<redacted:openai-key>");
  });
});

describe("shape regexes are made on first need", () => {
  test("none at load or for a text without a shape's literal; a token's shape at its first text", () => {
    const fixture = `${import.meta.dir}/../fixtures/redact-regexes.ts`;
    const run = spawnSync(process.execPath, [fixture], { encoding: "utf8", timeout: 20_000 });
    expect(run.status).toBe(0);
    const { counts, redacted } = JSON.parse(run.stdout) as { counts: number[]; redacted: string };
    expect(counts.slice(0, 2)).toEqual([0, 0]);
    expect(counts[2]).toBeGreaterThan(0);
    expect(redacted).toBe("token <redacted:github-token> here");
  });
});
