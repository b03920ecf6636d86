/**
 * An answer sent to the null device is written as one to a pipe or a file is: straight to
 * descriptor 1, with no stream made for it. `process.stdout` on a character device duplicates the
 * descriptor (`fcntl(1, F_DUPFD_CLOEXEC)`) and loads Node's stream machinery, milliseconds a run
 * does not need when nobody reads what it writes (lib/ui/output.ts). Seen through strace.
 */
import { describe, expect } from "bun:test";
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { hostTest } from "../host-packages.ts";
import { BINARY, binaryEnv, fakeEnv, useE2E } from "./_harness.ts";
import { STRACE, traceLines } from "./_traced.ts";

const e2e = useE2E();

/** Runs `-p hi` under strace with stdout opened on `target` ("pipe" for a pipe); the calls on descriptor 1 and the exit code. */
function _callsOnStdout(target: string, trace: string): Promise<{ code: number | null; calls: string[] }> {
  return new Promise((resolvePromise) => {
    const fd = target === "pipe" ? "pipe" : openSync(target, "w");
    const child = spawn("strace", ["-f", "-qq", "-e", "trace=write,fcntl,dup,dup2,dup3", "-o", trace, BINARY, "-p", "hi"], {
      cwd: e2e.dirs.cwd,
      env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")),
      stdio: ["ignore", fd, "ignore"],
    });
    if (typeof fd === "number") closeSync(fd);
    child.stdout?.resume();
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      const calls = traceLines(trace)
        .map((line) => line.replace(/^\d+\s+/, ""))
        .filter((line) => /^(write|fcntl|dup[23]?)\(1[,)]/.test(line));
      resolvePromise({ code, calls });
    });
  });
}

describe("stdout on the null device", () => {
  hostTest(
    STRACE,
    "gets the answer in a write to descriptor 1 and no duplicate of it, as a pipe does",
    async () => {
      e2e.fake.respond(() => ({ text: "hello" }));
      for (const target of ["/dev/null", "pipe"]) {
        const { code, calls } = await _callsOnStdout(target, join(e2e.dirs.home, `strace-${target.replaceAll("/", "_")}.txt`));
        expect({ target, code }).toEqual({ target, code: 0 });
        expect(calls.filter((call) => !call.startsWith("write("))).toEqual([]);
        expect(calls.join("\n")).toContain('write(1, "hello');
      }
    },
    120_000,
  );
});
