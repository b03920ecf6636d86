/**
 * `bun run release`, all targets, once: every artifact is there, SHA256SUMS and release.json match
 * the files, each binary starts with the header of its platform, each archive holds exactly its
 * binary, a rebuild of one target gives the same bytes, and the linux-arm64 binary answers
 * `--version` and one headless turn against the fake provider under qemu-user. The musl binary
 * needs Alpine's libstdc++, which Debian does not ship, so it is checked by its header only.
 * qemu-user-static and libc6-arm64-cross (Debian) are needed for the arm64 part: without them it
 * is skipped with a notice, and fails under CI=true (test/host-packages.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, inflateRawSync } from "node:zlib";
import pkg from "../../package.json" with { type: "json" };
import type { ReleaseIndex } from "../../lib/release/release-index.ts";
import { readTarFile } from "../../lib/release/tar.ts";
import { RELEASE_TARGETS, archiveEntryName, archiveFileName, binaryFileName, type BinaryFormat } from "../../lib/release/targets.ts";
import { startFakeProvider } from "../fakes/provider.ts";
import { findOnPath, hostDescribe, hostPackage } from "../host-packages.ts";
import { ROOT, binaryEnv, fakeEnv } from "./_harness.ts";
import { buildTestRelease, runProcess } from "./_release.ts";

const QEMU = "qemu-aarch64-static";
const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";
const QEMU_PACKAGE = hostPackage(
  "qemu-user",
  "apt-get install -y qemu-user-static libc6-arm64-cross",
  findOnPath(QEMU) !== undefined && spawnSync(QEMU, ["--version"]).status === 0 && existsSync(join(ARM64_SYSROOT, "lib", "ld-linux-aarch64.so.1")),
  `${QEMU} on PATH and ${ARM64_SYSROOT} are needed`,
);

let work: string;
let out: string;
let index: ReleaseIndex;
const sha = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const sums = new Map<string, string>();
/** The sum of a file of the release, hashed once for the file's tests (the artifacts are ~1 GB together). */
const shaOf = (file: string): string => {
  if (!sums.has(file)) sums.set(file, sha(readFileSync(join(out, file))));
  return sums.get(file)!;
};
const git = (...args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" }).stdout.trim();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "shiro-release-test-"));
  out = join(work, "release");
  const result = await runProcess(process.execPath, ["run", "release", "--out", out], {
    env: { ...process.env } as Record<string, string>,
    timeoutMs: 900_000,
  });
  if (result.code !== 0) throw new Error(`bun run release failed:\n${result.stdout}${result.stderr}`);
  index = JSON.parse(readFileSync(join(out, "release.json"), "utf8"));
}, 900_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The format the first bytes say, or a description of what they are instead. */
function formatOf(bytes: Buffer): BinaryFormat | string {
  if (bytes.readUInt32BE(0) === 0x7f454c46) {
    const [elfClass, endian, machine] = [bytes[4], bytes[5], bytes.readUInt16LE(18)];
    if (elfClass === 2 && endian === 1 && machine === 0x3e) return "elf-x86-64";
    if (elfClass === 2 && endian === 1 && machine === 0xb7) return "elf-aarch64";
    return `elf class ${elfClass} machine ${machine}`;
  }
  if (bytes.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = bytes.readUInt32LE(4);
    if (cpu === 0x01000007) return "macho-x86_64";
    if (cpu === 0x0100000c) return "macho-arm64";
    return `mach-o cpu ${cpu}`;
  }
  if (bytes.toString("latin1", 0, 2) === "MZ") {
    const pe = bytes.readUInt32LE(0x3c);
    const [signature, machine, magic] = [bytes.readUInt32LE(pe), bytes.readUInt16LE(pe + 4), bytes.readUInt16LE(pe + 24)];
    if (signature === 0x00004550 && machine === 0x8664 && magic === 0x20b) return "pe32+-x64";
    return `pe machine ${machine} magic ${magic}`;
  }
  return `unknown ${bytes.subarray(0, 4).toString("hex")}`;
}

function unzipOne(zip: Buffer): { name: string; data: Buffer } {
  const nameLength = zip.readUInt16LE(26);
  const start = 30 + nameLength + zip.readUInt16LE(28);
  return { name: zip.toString("utf8", 30, 30 + nameLength), data: inflateRawSync(zip.subarray(start, start + zip.readUInt32LE(18))) };
}

describe("bun run release", () => {
  test("writes every artifact, SHA256SUMS, release.json and the installers, and nothing else", () => {
    const expected = [
      ...RELEASE_TARGETS.flatMap((t) => [binaryFileName(t), archiveFileName(t)]),
      "SHA256SUMS",
      "install.ps1",
      "install.sh",
      "release.json",
    ].sort();
    expect(readdirSync(out).sort()).toEqual(expected);
  });

  test("SHA256SUMS lists every file but itself and the index, sorted, each sum that of the file", () => {
    const lines = readFileSync(join(out, "SHA256SUMS"), "utf8").split("\n").filter(Boolean);
    const files = readdirSync(out)
      .filter((f) => f !== "SHA256SUMS" && f !== "release.json")
      .sort();
    expect(lines).toEqual(files.map((file) => `${shaOf(file)}  ${file}`));
    expect(spawnSync("sha256sum", ["--check", "--strict", "SHA256SUMS"], { cwd: out, encoding: "utf8" }).status).toBe(0);
  }, 120_000);

  test("release.json names this version and commit, and each target's binary and archive with their size and sum", () => {
    const head = git("rev-parse", "HEAD");
    expect(index.commit === head || index.commit === `${head}-dirty`).toBe(true);
    expect({ ...index, commit: head, artifacts: [] }).toEqual({
      format: 1,
      product: "shiro-neko",
      version: pkg.version,
      commit: head,
      date: new Date(Number(git("log", "-1", "--format=%ct", "HEAD")) * 1000).toISOString(),
      artifacts: [],
    });
    const expected = RELEASE_TARGETS.flatMap((t) => [
      { file: binaryFileName(t), target: t.name, kind: "binary" },
      { file: archiveFileName(t), target: t.name, kind: "archive" },
    ])
      .map((a) => ({ ...a, size: statSync(join(out, a.file)).size, sha256: shaOf(a.file) }))
      .sort((a, b) => (a.file < b.file ? -1 : 1));
    expect(index.artifacts).toEqual(expected as ReleaseIndex["artifacts"]);
  }, 120_000);

  for (const target of RELEASE_TARGETS) {
    test(`${binaryFileName(target)} is ${target.format}, and ${archiveFileName(target)} holds exactly it`, () => {
      const binary = readFileSync(join(out, binaryFileName(target)));
      expect(formatOf(binary)).toBe(target.format);
      const archive = readFileSync(join(out, archiveFileName(target)));
      const entry =
        target.os === "windows" ? unzipOne(archive) : { name: archiveEntryName(target), data: readTarFile(gunzipSync(archive), archiveEntryName(target)) };
      expect(entry.name).toBe(archiveEntryName(target));
      expect(entry.data?.equals(binary)).toBe(true);
      const interpreter = {
        "linux-x64-musl": "/lib/ld-musl-x86_64.so.1",
        "linux-arm64": "/lib/ld-linux-aarch64.so.1",
        "linux-x64": "/lib64/ld-linux-x86-64.so.2",
      }[target.name];
      if (interpreter) expect(binary.subarray(0, 4096).includes(Buffer.from(`${interpreter}\0`))).toBe(true);
    }, 60_000);
  }

  test("building one target again gives the same bytes and the same index entries", async () => {
    const again = join(work, "again");
    await buildTestRelease(again, ["linux-arm64"]);
    const second: ReleaseIndex = JSON.parse(readFileSync(join(again, "release.json"), "utf8"));
    expect(second).toEqual({ ...index, artifacts: index.artifacts.filter((a) => a.target === "linux-arm64") });
    for (const file of ["shiro-linux-arm64", "shiro-linux-arm64.tar.gz"])
      expect(readFileSync(join(again, file)).equals(readFileSync(join(out, file)))).toBe(true);
  }, 600_000);

  hostDescribe(QEMU_PACKAGE, `linux-arm64 under ${QEMU}`, () => {
    const runArm = (args: string[], home: string, env: Record<string, string> = {}) =>
      runProcess(QEMU, ["-L", ARM64_SYSROOT, join(out, "shiro-linux-arm64"), ...args], { env: binaryEnv(home, env), cwd: home, timeoutMs: 120_000 });

    test("answers --version with its version, commit, date and platform", async () => {
      const home = mkdtempSync(join(work, "arm-home-"));
      const result = await runArm(["--version"], home);
      expect(result).toEqual({
        code: 0,
        stdout: `shiro-neko ${pkg.version} (${index.commit.slice(0, 7)}${index.commit.endsWith("-dirty") ? "-dirty" : ""} ${index.date.slice(0, 10)})  bun ${Bun.version}  linux-arm64  compiled\n`,
        stderr: "",
      });
    }, 120_000);

    test("runs one headless turn against the fake provider", async () => {
      const home = mkdtempSync(join(work, "arm-home-"));
      const fake = await startFakeProvider();
      try {
        fake.respond(() => ({ text: "arm64 ok" }));
        const result = await runArm(["-p", "say ok"], home, fakeEnv(fake.baseURL, "chat"));
        expect([result.code, result.stdout]).toEqual([0, "arm64 ok\n"]);
        expect(fake.requests.length).toBe(1);
        expect(fake.violations).toEqual([]);
      } finally {
        await fake.stop();
      }
    }, 180_000);
  });
});
