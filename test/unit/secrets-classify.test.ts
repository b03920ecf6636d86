/** The one secrets classifier: names in every spelling, real paths behind links, content shapes. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { classifySecretContent, classifySecretFile, classifySecretPath } from "../../lib/secrets/classify.ts";

const ENV = "an env file";
const KEY = "a private key or keystore";
const SSH = "an SSH private key";
const PM = "a package-manager or netrc credential file";
const CLOUD = "a cloud or cluster credential file";
const CREDS = "a credentials file";
const TOOL = "a tool's credential file";
const TFSTATE = "a Terraform state file";
const SHIRO = "shiro's config file (it may hold the provider key)";

describe("classifySecretPath", () => {
  const flagged: [string, string][] = [
    [".env", ENV],
    [".env.local", ENV],
    ["config/.env.production", ENV],
    ["prod.env", ENV],
    ["app.env.staging", ENV],
    [".envrc", ENV],
    [".ENV", ENV],
    ["./x/../.env", ENV],
    ["/ws/deploy/.env", ENV],
    ["a\\b\\.env", ENV],
    ["server.key", KEY],
    ["tls/cert.pem", KEY],
    ["store.p12", KEY],
    ["cert.pfx", KEY],
    ["app.keystore", KEY],
    ["release.jks", KEY],
    ["putty.ppk", KEY],
    ["vault.kdbx", KEY],
    ["KEY.PEM", KEY],
    ["id_rsa", SSH],
    ["keys/id_ed25519", SSH],
    ["id_ecdsa_sk", SSH],
    [".npmrc", PM],
    [".yarnrc.yml", PM],
    [".pypirc", PM],
    [".netrc", PM],
    ["_netrc", PM],
    [".pgpass", PM],
    [".git-credentials", PM],
    [".cargo/credentials.toml", PM],
    [".gem/credentials", PM],
    [".htpasswd", PM],
    [".aws/credentials", CLOUD],
    [".aws/config", CLOUD],
    [".azure/accessTokens.json", CLOUD],
    [".kube/config", CLOUD],
    ["kubeconfig", CLOUD],
    [".docker/config.json", CLOUD],
    [".config/gcloud/credentials.db", CLOUD],
    ["application_default_credentials.json", CLOUD],
    ["gcp/service-account.json", CLOUD],
    ["service_account-prod.json", CLOUD],
    ["client_secret_123.json", CLOUD],
    ["home/.ssh/authorized_keys", CLOUD],
    ["x/.gnupg/pubring.kbx", CLOUD],
    ["prod.publishsettings", CLOUD],
    ["credentials.json", CREDS],
    ["credentials", CREDS],
    ["secrets.yaml", CREDS],
    ["config/secret.toml", CREDS],
    [".env_prod", ENV],
    [".env-local", ENV],
    [".envs/.production/.django", ENV],
    [".envs/.local/.postgres", ENV],
    [".config/gh/hosts.yml", TOOL],
    ["home/u/.config/hub", TOOL],
    [".my.cnf", TOOL],
    [".mylogin.cnf", TOOL],
    [".s3cfg", TOOL],
    [".passwd-s3fs", TOOL],
    [".boto", TOOL],
    [".vault-token", TOOL],
    ["auth.json", TOOL],
    ["home/u/.config/composer/auth.json", TOOL],
    [".dockercfg", TOOL],
    [".databrickscfg", TOOL],
    [".config/rclone/rclone.conf", TOOL],
    [".m2/settings.xml", TOOL],
    [".m2/settings-security.xml", TOOL],
    [".gradle/gradle.properties", TOOL],
    ["terraform.tfstate", TFSTATE],
    ["infra/terraform.tfstate.backup", TFSTATE],
    [".terraform/prod.tfstate", TFSTATE],
    [".terraform.d/credentials.tfrc.json", PM],
    ["/home/u/.shiro-neko/config.json", SHIRO],
    ["/var/state/.SHIRO-NEKO/config.json", SHIRO],
  ];
  const plain = [
    ".env.example",
    "app/.env.example",
    ".env.sample",
    ".env.template",
    ".env.dist",
    "src/env.ts",
    "environment.md",
    "docs/keys.md",
    "id_rsa.pub",
    "keys/id_ed25519.pub",
    "id_rsa_notes.txt",
    "id_test.go",
    ".ssh/known_hosts",
    ".ssh/id_rsa.pub",
    "credentials.md",
    "secrets/readme.md",
    "src/secrets.ts",
    "keyboard.ts",
    ".envrc.md",
    "config.json",
    "docker/config.json",
    ".shiro/config.json",
    "/home/u/.shiro-neko/approvals.json",
    "monkey.txt",
    "package.json",
    "/home/u/.aws-notes/x.txt",
    ".env_example",
    ".env-sample",
    ".env.defaults",
    "auth.json.example",
    "auth.example.json",
    "src/auth.ts",
    ".config/gh/config.yml",
    "hosts.yml",
    "settings.xml",
    "app/src/main/res/values/settings.xml",
    "gradle.properties",
    "main.tf",
    "terraform.tfvars.example",
    "tfstate.md",
    ".env/lib/python3.12/site.py",
    "my.cnf.sample",
  ];

  test(`${flagged.length} credential names are flagged, each for what it is`, () => {
    expect(flagged.map(([path]) => [path, classifySecretPath(path, "/ws")])).toEqual(flagged);
  });

  test(`${plain.length} look-alikes pass`, () => {
    expect(plain.map((path) => [path, classifySecretPath(path, "/ws")])).toEqual(plain.map((path) => [path, undefined]));
  });

  test("the folders that hold the workspace never count", () => {
    expect(classifySecretPath("/home/u/.aws/ws/src/a.ts", "/home/u/.aws/ws")).toBeUndefined();
    expect(classifySecretPath("/home/u/.ssh/x", "/ws")).toBe(CLOUD);
  });
});

describe("classifySecretContent", () => {
  test("private key blocks, service-account keys and AWS secret keys, whatever the name", () => {
    const shapes: [string, string | undefined][] = [
      ["-----BEGIN RSA PRIVATE KEY-----\nMII", "a private key"],
      ["x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl", "a private key"],
      ["-----BEGIN PRIVATE KEY-----", "a private key"],
      ["-----BEGIN ENCRYPTED PRIVATE KEY-----", "a private key"],
      ["-----BEGIN PGP PRIVATE KEY BLOCK-----", "a private key"],
      ['{"type": "service_account", "project_id": "p", "private_key": "x"}', "a cloud service-account key"],
      ["[default]\naws_secret_access_key = abc", "an AWS secret key"],
      ["-----BEGIN CERTIFICATE-----\nMII", undefined],
      ["-----BEGIN PUBLIC KEY-----", undefined],
      ['{"type": "service_account"}', undefined],
      ["const privateKey = load();", undefined],
    ];
    expect(shapes.map(([text]) => [text, classifySecretContent(text)])).toEqual(shapes);
  });
});

describe("classifySecretFile", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "shiro-classify-")));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "deploy"));
  writeFileSync(join(root, ".env"), "A=1\n");
  writeFileSync(join(root, "deploy", "notes.txt"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
  writeFileSync(join(root, "readme.md"), "hello\n");
  symlinkSync(join(root, ".env"), join(root, "settings"));

  test("by name, by the real name behind a link, by content; a missing file by its name alone", () => {
    expect(classifySecretFile(join(root, ".env"), root)).toBe(ENV);
    expect(classifySecretFile(join(root, "settings"), root)).toBe(ENV);
    expect(classifySecretFile(join(root, "deploy", "notes.txt"), root)).toBe("a private key");
    expect(classifySecretFile(join(root, "readme.md"), root)).toBeUndefined();
    expect(classifySecretFile(join(root, "gone", "id_rsa"), root)).toBe(SSH);
    expect(classifySecretFile(root, root)).toBeUndefined();
  });
});
