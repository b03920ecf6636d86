/**
 * The release building blocks: version order, the release index parser, the tar writer and
 * reader against the system's tar, the zip writer against a reader, the release base precedence,
 * and the installers agreeing with lib/release/targets.ts on the default base and the targets.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { crc32, inflateRawSync } from "node:zlib";
import { compareVersions, findArtifact, parseReleaseIndex } from "../../lib/release/release-index.ts";
import { readTarFile, writeTar } from "../../lib/release/tar.ts";
import { DEFAULT_RELEASE_BASE, RELEASE_TARGETS, archiveFileName, binaryFileName } from "../../lib/release/targets.ts";
import { resolveReleaseBase } from "../../lib/release/update.ts";
import { writeZip } from "../../.ci/release/zip.ts";

const ROOT = resolve(import.meta.dir, "..", "..");

describe("compareVersions", () => {
  const ordered = [
    "0.0.1",
    "0.1.0-alpha",
    "0.1.0-alpha.1",
    "0.1.0-alpha.2",
    "0.1.0-alpha.10",
    "0.1.0-beta",
    "0.1.0-rc.1",
    "0.1.0",
    "0.1.1",
    "0.2.0",
    "0.10.0",
    "1.0.0",
    "2.0.0",
    "10.0.0",
  ];
  test("sorts a table of versions in semver order, each equal to itself", () => {
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++)
        expect([ordered[i], ordered[j], compareVersions(ordered[i]!, ordered[j]!)]).toEqual([ordered[i], ordered[j], Math.sign(i - j)]);
    }
  });
});

const SHA = "a".repeat(64);
const goodIndex = {
  format: 1,
  product: "shiro-neko",
  version: "1.2.3",
  commit: "abc",
  date: "2026-01-01T00:00:00.000Z",
  artifacts: [{ file: "shiro-linux-x64.tar.gz", target: "linux-x64", kind: "archive", size: 10, sha256: SHA }],
};

describe("parseReleaseIndex", () => {
  test("reads a good index, keeps unknown fields out of the way, and finds artifacts", () => {
    const index = parseReleaseIndex(JSON.stringify({ ...goodIndex, future: true }), "x/release.json");
    expect(findArtifact(index, "linux-x64", "archive")?.sha256).toBe(SHA);
    expect(findArtifact(index, "linux-x64", "binary")).toBeUndefined();
  });
  const bad: [string, string][] = [
    ["<html>", "x/release.json is not JSON; is the release base right?"],
    [JSON.stringify({ ...goodIndex, format: 2 }), "x/release.json has index format 2, newer than this shiro reads (1); reinstall with install.sh"],
    [JSON.stringify({ ...goodIndex, version: "latest" }), "x/release.json is not a release index: version must be a version like 1.2.3"],
    [
      JSON.stringify({ ...goodIndex, artifacts: [{ ...goodIndex.artifacts[0], sha256: "ABC" }] }),
      "x/release.json is not a release index: artifacts.0.sha256 must be 64 lowercase hex digits",
    ],
    [
      JSON.stringify({ ...goodIndex, artifacts: [{ ...goodIndex.artifacts[0], file: "../etc/passwd" }] }),
      "x/release.json is not a release index: artifacts.0.file must be a plain file name",
    ],
  ];
  for (const [text, message] of bad) test(`refuses ${text.slice(0, 40)}…`, () => expect(() => parseReleaseIndex(text, "x/release.json")).toThrow(message));
});

describe("tar", () => {
  test("what writeTar writes, the system tar lists and extracts with mode and mtime; the same input gives the same bytes", () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-tar-"));
    try {
      const data = Buffer.from("x".repeat(1000));
      const tar = writeTar([{ name: "shiro", data, mode: 0o755 }], 1_700_000_000);
      expect(writeTar([{ name: "shiro", data, mode: 0o755 }], 1_700_000_000).equals(tar)).toBe(true);
      writeFileSync(join(dir, "a.tar"), tar);
      const listed = spawnSync("tar", ["--utc", "-tvf", join(dir, "a.tar")], { encoding: "utf8" });
      expect(listed.stdout).toBe("-rwxr-xr-x root/root      1000 2023-11-14 22:13 shiro\n");
      expect(spawnSync("tar", ["-xOf", join(dir, "a.tar"), "shiro"]).stdout.equals(data)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("readTarFile finds a file in an archive the system tar made, with or without ./", () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-tar-"));
    try {
      writeFileSync(join(dir, "first"), "one");
      writeFileSync(join(dir, "shiro"), Buffer.alloc(1500, 7));
      for (const names of [
        ["first", "shiro"],
        ["./first", "./shiro"],
      ]) {
        spawnSync("tar", ["-cf", join(dir, "b.tar"), "-C", dir, ...names]);
        const tar = readFileSync(join(dir, "b.tar"));
        expect(readTarFile(tar, "shiro")?.equals(Buffer.alloc(1500, 7))).toBe(true);
        expect(readTarFile(tar, "first")?.toString()).toBe("one");
        expect(readTarFile(tar, "missing")).toBeUndefined();
      }
      expect(() => readTarFile(writeTar([{ name: "shiro", data: Buffer.alloc(2000), mode: 0o644 }], 0).subarray(0, 1024), "shiro")).toThrow("truncated");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("zip", () => {
  test("writeZip makes one deflated entry a reader inflates back, with its crc, the same bytes every time", () => {
    const data = Buffer.from("MZ".padEnd(5000, "shiro"));
    const zip = writeZip([{ name: "shiro.exe", data }]);
    expect(writeZip([{ name: "shiro.exe", data }]).equals(zip)).toBe(true);
    expect(zip.readUInt32LE(0)).toBe(0x04034b50);
    const nameLength = zip.readUInt16LE(26);
    expect(zip.subarray(30, 30 + nameLength).toString()).toBe("shiro.exe");
    const compressed = zip.subarray(30 + nameLength, 30 + nameLength + zip.readUInt32LE(18));
    expect(inflateRawSync(compressed).equals(data)).toBe(true);
    expect(zip.readUInt32LE(14)).toBe(crc32(data));
    const end = zip.subarray(zip.length - 22);
    expect([end.readUInt32LE(0), end.readUInt16LE(10), end.readUInt32LE(16) + end.readUInt32LE(12)]).toEqual([0x06054b50, 1, zip.length - 22]);
    const dir = mkdtempSync(join(tmpdir(), "shiro-zip-"));
    try {
      writeFileSync(join(dir, "a.zip"), zip);
      const unzip = spawnSync("unzip", ["-p", join(dir, "a.zip"), "shiro.exe"]);
      // unzip is not part of every system; where it is, it must read the archive.
      if (!unzip.error) expect([unzip.status, unzip.stdout.equals(data)]).toEqual([0, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("release base and names", () => {
  test("SHIRO_INSTALL_BASE beats config's update.base beats the default; trailing slashes go", () => {
    const table: [NodeJS.ProcessEnv, string | undefined, string][] = [
      [{}, undefined, DEFAULT_RELEASE_BASE],
      [{ SHIRO_INSTALL_BASE: "" }, undefined, DEFAULT_RELEASE_BASE],
      [{}, "https://mirror.example/shiro/", "https://mirror.example/shiro"],
      [{ SHIRO_INSTALL_BASE: "/srv/rel//" }, "https://mirror.example/shiro", "/srv/rel"],
    ];
    for (const [env, configured, base] of table) expect(resolveReleaseBase(env, configured)).toBe(base);
  });

  test("the installers name the same default base and the same targets as lib/release/targets.ts", () => {
    const sh = readFileSync(join(ROOT, ".ci", "release", "install.sh"), "utf8");
    const ps1 = readFileSync(join(ROOT, ".ci", "release", "install.ps1"), "utf8");
    expect(sh).toContain(`\nDEFAULT_BASE="${DEFAULT_RELEASE_BASE}"\n`);
    expect(ps1).toContain(`\n$DefaultBase = '${DEFAULT_RELEASE_BASE}'\n`);
    const unix = RELEASE_TARGETS.filter((t) => t.os !== "windows")
      .map((t) => t.name)
      .join(" ");
    expect(sh).toContain(`\nTARGETS="${unix}"\n`);
    expect(ps1).toContain("$Archive = 'shiro-windows-x64.zip'");
    expect(RELEASE_TARGETS.map((t) => [binaryFileName(t), archiveFileName(t)])).toEqual([
      ["shiro-linux-x64", "shiro-linux-x64.tar.gz"],
      ["shiro-linux-x64-baseline", "shiro-linux-x64-baseline.tar.gz"],
      ["shiro-linux-x64-musl", "shiro-linux-x64-musl.tar.gz"],
      ["shiro-linux-arm64", "shiro-linux-arm64.tar.gz"],
      ["shiro-darwin-x64", "shiro-darwin-x64.tar.gz"],
      ["shiro-darwin-arm64", "shiro-darwin-arm64.tar.gz"],
      ["shiro-windows-x64.exe", "shiro-windows-x64.zip"],
    ]);
  });
});

describe(".ci/release/build.ts arguments", () => {
  const table: [string[], string][] = [
    [
      ["--targets", "linux-x64,plan9-x64"],
      'release: unknown target "plan9-x64"; known: linux-x64, linux-x64-baseline, linux-x64-musl, linux-arm64, darwin-x64, darwin-arm64, windows-x64\n',
    ],
    [["--out"], "release: --out needs a value\n"],
    [["--fast"], "release: unknown option --fast; see the comment at the top of .ci/release/build.ts\n"],
  ];
  for (const [args, stderr] of table) {
    test(`${args.join(" ")}: one line, exit 1, nothing built`, () => {
      const result = spawnSync(process.execPath, [join(ROOT, ".ci", "release", "build.ts"), ...args], { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
      expect([result.status, result.stdout, result.stderr]).toEqual([1, "", stderr]);
    });
  }
});
