/**
 * OS errors as sentences: the errno table, and what json-file's writers throw for real OS
 * failures (a name too long, a file where a folder is expected, a full device), with the bytes
 * on disk proving the previous version is intact.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../lib/platform/errors.ts";
import { StateWriteError, describeErrno } from "../../lib/platform/os-errors.ts";
import { appendJsonLine, readJson, writeJsonAtomic } from "../../lib/state-file/json-file.ts";
import { withLockSync } from "../../lib/state-file/file-lock.ts";
import * as v from "valibot";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "shiro-os-errors-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: raw system text, write`), { code });
}

function thrownBy(fn: () => unknown): StateWriteError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StateWriteError) return error;
    throw error;
  }
  throw new Error("expected a throw");
}

describe("describeErrno", () => {
  const table: [string, string][] = [
    ["ENOSPC", "the disk is full (ENOSPC)"],
    ["EDQUOT", "the disk quota is used up (EDQUOT)"],
    ["EROFS", "the file system is read-only (EROFS)"],
    ["EACCES", "permission denied (EACCES)"],
    ["EPERM", "the operation is not permitted (EPERM)"],
    ["ENAMETOOLONG", "the name is too long for the file system (ENAMETOOLONG)"],
    ["ENOTDIR", "a file stands where a folder is expected on that path (ENOTDIR)"],
    ["EIO", "the device reported an I/O error (EIO)"],
  ];
  for (const [code, sentence] of table) {
    test(code, () => expect(describeErrno(errno(code))).toBe(sentence));
  }

  test("an unknown code keeps the system's first line and its code", () => {
    expect(describeErrno(errno("EWEIRD"))).toBe("EWEIRD: raw system text, write");
    expect(describeErrno(Object.assign(new Error("odd\nsecond line"), { code: "EODD" }))).toBe("odd (EODD)");
  });

  test("StateWriteError: which file, the cause, what is intact; exit 1; the errno kept", () => {
    const cases: [ConstructorParameters<typeof StateWriteError>, string][] = [
      [
        ["/s/sessions/a.json", errno("EROFS"), "replace", true],
        "cannot save /s/sessions/a.json: the file system is read-only (EROFS); its previous version is intact",
      ],
      [["/s/sessions/a.json", errno("EACCES"), "replace", false], "cannot save /s/sessions/a.json: permission denied (EACCES); nothing was written"],
      [
        ["/s/events/r.jsonl", errno("ENOSPC"), "append", true],
        "cannot append to /s/events/r.jsonl: the disk is full (ENOSPC); the lines already in it are intact",
      ],
      [
        ["/s/a.json.lock", errno("ENOTDIR"), "lock", false],
        "cannot create the lock file /s/a.json.lock: a file stands where a folder is expected on that path (ENOTDIR); no state file was changed",
      ],
    ];
    for (const [args, message] of cases) {
      const error = new StateWriteError(...args);
      expect(error).toBeInstanceOf(UserError);
      expect({ message: error.message, exitCode: error.exitCode, code: error.code }).toEqual({
        message,
        exitCode: 1,
        code: (args[1] as NodeJS.ErrnoException).code,
      });
    }
  });
});

describe("json-file writers fail with sentences", () => {
  test("a name too long: the previous version is intact, no temp file is left", () => {
    // 253 characters is a legal name; the temp file beside it (`.<pid>.<n>.tmp`) is not.
    const path = join(dir, `${"n".repeat(248)}.json`);
    writeFileSync(path, '{"old":true}\n');
    const error = thrownBy(() => writeJsonAtomic(path, { old: false }));
    expect(error.message).toBe(`cannot save ${path}: the name is too long for the file system (ENAMETOOLONG); its previous version is intact`);
    expect(readFileSync(path, "utf8")).toBe('{"old":true}\n');
    expect(readdirSync(dir)).toEqual([`${"n".repeat(248)}.json`]);
  });

  test("a 300-character name: nothing was written", () => {
    const path = join(dir, `${"n".repeat(300)}.json`);
    const error = thrownBy(() => writeJsonAtomic(path, {}));
    expect(error.message).toBe(`cannot save ${path}: the name is too long for the file system (ENAMETOOLONG); nothing was written`);
    expect(error.code).toBe("ENAMETOOLONG");
  });

  test("a file where a folder is expected, for replace, append and lock", () => {
    writeFileSync(join(dir, "sessions"), "a file\n");
    const path = join(dir, "sessions", "a.json");
    const tail = "a file stands where a folder is expected on that path";
    expect(thrownBy(() => writeJsonAtomic(path, {})).message).toMatch(new RegExp(`^cannot save ${path}: ${tail} \\((ENOTDIR|EEXIST)\\); nothing was written$`));
    expect(thrownBy(() => appendJsonLine(`${path}l`, {})).message).toMatch(
      new RegExp(`^cannot append to ${path}l: ${tail} \\((ENOTDIR|EEXIST)\\); nothing was written$`),
    );
    expect(thrownBy(() => withLockSync(path, () => 1)).message).toMatch(
      new RegExp(`^cannot create the lock file ${path}\\.lock: ${tail} \\((ENOTDIR|EEXIST)\\); no state file was changed$`),
    );
    expect(readFileSync(join(dir, "sessions"), "utf8")).toBe("a file\n");
  });

  test("a full device (ENOSPC) on append", () => {
    mkdirSync(join(dir, "events"));
    const path = join(dir, "events", "r.jsonl");
    symlinkSync("/dev/full", path);
    expect(thrownBy(() => appendJsonLine(path, { seq: 1 })).message).toBe(
      `cannot append to ${path}: the disk is full (ENOSPC); the lines already in it are intact`,
    );
  });

  test("a read that fails says why in words", () => {
    const path = join(dir, `${"n".repeat(300)}.json`);
    expect(readJson(path, { schema: v.unknown() })).toEqual({
      status: "corrupt",
      reason: "cannot be read: the name is too long for the file system (ENAMETOOLONG)",
    });
  });
});
