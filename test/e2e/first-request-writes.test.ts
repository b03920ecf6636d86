/**
 * What a plain `-p` makes durable before its first model request, counted with strace: one fsync,
 * of the session file holding the prompt. The new session's first record and the run's first
 * snapshot are written whole (temp file, rename) but not fsynced (lib/state-file/json-file.ts
 * `durable: false`), so a disk pays one flush, not three, before the request; a process killed
 * then still leaves both (delivery.test.ts, "a run killed in its first moments"). In a home whose
 * folders exist (a second turn), no write before the request makes a folder first (nor stats it,
 * as a recursive mkdir does): each opens its file at once (lib/state-file/json-file.ts makes a
 * folder only when an open finds it missing), and the new session's lease is one O_EXCL create,
 * no lock file around it (lib/store/session-lease.ts `takeNewLease`).
 */
import { describe, expect } from "bun:test";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { hostTest } from "../host-packages.ts";
import { binaryEnv, ensureBinary, fakeEnv, useE2E } from "./_harness.ts";
import { runTraced, STRACE, traceLines } from "./_traced.ts";

const e2e = useE2E();

describe("before the first request", () => {
  hostTest(
    STRACE,
    "a new session's plain turn fsyncs only the session with its prompt; the end of the run makes the snapshot durable",
    async () => {
      e2e.fake.script({ text: "hello" });
      const out = join(e2e.dirs.home, "strace.txt");
      const code = await new Promise<number | null>((resolvePromise) => {
        const child = spawn(
          "strace",
          ["-f", "-qq", "-y", "-s", "16", "-e", "trace=fsync,fdatasync,write,writev,sendto,sendmsg", "-o", out, ensureBinary(), "-p", "hi"],
          { cwd: e2e.dirs.cwd, env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")), stdio: "ignore" },
        );
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
        child.on("close", (status) => resolvePromise((clearTimeout(timer), status)));
      });
      expect(code).toBe(0);
      expect(e2e.fake.requests).toHaveLength(1);
      const state = `${join(e2e.dirs.home, ".shiro-neko")}/`;
      const lines = traceLines(out);
      const request = lines.findIndex((line) => line.includes('"POST /'));
      expect(request).toBeGreaterThan(0);
      const synced = (part: string[]) =>
        part
          .filter((line) => /\sf(data)?sync\(/.test(line))
          .map((line) =>
            line
              .slice(line.indexOf(state) + state.length)
              .split(/[<>]/)[0]!
              .replace(/\.\d+\.\d+\.tmp$/, ""),
          );
      const id = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
      const before = synced(lines.slice(0, request));
      expect(before.map((path) => path.replace(new RegExp(id, "g"), "ID"))).toEqual(["sessions/ID.json"]);
      expect(synced(lines.slice(request)).map((path) => path.replace(new RegExp(id, "g"), "ID"))).toContain("runs/ID.json");
    },
    90_000,
  );

  hostTest(
    STRACE,
    "a second turn, its folders there, makes no folder and takes its new session's lease without a lock before the request",
    async () => {
      e2e.fake.respond(() => ({ text: "hello" }));
      const env = binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat"));
      expect((await runTraced(ensureBinary(), ["-p", "hi"], { cwd: e2e.dirs.cwd, env })).code).toBe(0);
      const out = join(e2e.dirs.home, "strace.txt");
      const run = await runTraced(ensureBinary(), ["-p", "hi"], {
        cwd: e2e.dirs.cwd,
        env,
        out,
        trace: "mkdir,mkdirat,openat,sendto,write",
      });
      expect(run.code).toBe(0);
      const lines = traceLines(out);
      const request = lines.findIndex((line) => line.includes('"POST /'));
      expect(request).toBeGreaterThan(0);
      const state = join(e2e.dirs.home, ".shiro-neko");
      const folders = ["sessions", "runs", "events"].map((name) => `"${join(state, name)}"`);
      const touched = lines.slice(0, request).filter((line) => /\bmkdir(at)?\(/.test(line) && folders.some((folder) => line.includes(folder)));
      expect(touched).toEqual([]);
      // A new session's lease is one O_EXCL create, without the lease lock (session-lease.ts takeNewLease).
      const before = lines.slice(0, request);
      expect(before.filter((line) => /\.lease\.lock"/.test(line))).toEqual([]);
      expect(before.filter((line) => /\.lease", O_WRONLY\|O_CREAT\|O_EXCL/.test(line))).toHaveLength(1);
      // The writes themselves did happen: the session, the run's snapshot and its first events.
      const opened = lines.slice(0, request).filter((line) => /openat\(.*O_CREAT/.test(line) && line.includes(state));
      for (const folder of ["sessions", "runs", "events"])
        expect(opened.some((line) => line.includes(`${join(state, folder)}/`)) ? folder : `no ${folder} write`).toBe(folder);
    },
    90_000,
  );
});
