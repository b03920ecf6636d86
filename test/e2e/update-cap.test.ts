/**
 * `shiro update` caps what it reads (issue 20): a release base on 127.0.0.1 whose release.json
 * never ends, one that announces 300 MB, and a 300 MB sparse file as a local base each stop the
 * command with one line on stderr, after the client read little more than the cap (the server
 * counts what it sent and stops by itself at 64 MiB).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, openSync, ftruncateSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { INDEX_MAX_BYTES } from "../../lib/release/update.ts";
import { useE2E } from "./_harness.ts";

const e2e = useE2E();
const CHUNK = Buffer.alloc(64 * 1024, 0x20);
const SERVER_LIMIT = 64 * 1024 * 1024;

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** Serves release.json as an endless body (chunked) or one announcing 300 MB; returns the base URL and the bytes sent. */
async function serveBody(kind: "endless" | "announced"): Promise<{ base: string; sent: () => number }> {
  let sent = 0;
  server = createServer((request, response) => {
    response.writeHead(
      200,
      kind === "announced" ? { "content-type": "application/json", "content-length": String(300 * 1024 * 1024) } : { "content-type": "application/json" },
    );
    const pump = () => {
      while (sent < SERVER_LIMIT && !response.destroyed) {
        sent += CHUNK.length;
        if (!response.write(CHUNK)) return void response.once("drain", pump);
      }
      response.end();
    };
    request.socket.on("close", () => response.destroy());
    pump();
  });
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${kind}`, sent: () => sent };
}

const tooBig = (where: string) =>
  `shiro: ${where}/release.json is larger than ${INDEX_MAX_BYTES} bytes, more than a release holds; check SHIRO_INSTALL_BASE or update.base in config\n`;

describe("shiro update reads a capped amount", () => {
  for (const kind of ["endless", "announced"] as const) {
    test(`an ${kind} release.json stops with one line, and the client stopped reading near the cap`, async () => {
      const { base, sent } = await serveBody(kind);
      const result = await e2e.shiro(["update", "--check"], { env: { SHIRO_INSTALL_BASE: base }, timeoutMs: 60_000 });
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 1, stdout: "", stderr: tooBig(base) });
      // Whatever the kernel buffered past the cut, far less than the server would have sent.
      expect(sent()).toBeLessThan(INDEX_MAX_BYTES + 16 * 1024 * 1024);
    }, 90_000);
  }

  test("a 300 MB release.json in a local base stops with one line, unread", async () => {
    const dir = join(e2e.dirs.home, "huge-release");
    mkdirSync(dir);
    const fd = openSync(join(dir, "release.json"), "w");
    ftruncateSync(fd, 300 * 1024 * 1024);
    closeSync(fd);
    const result = await e2e.shiro(["update", "--check"], { env: { SHIRO_INSTALL_BASE: dir }, timeoutMs: 60_000 });
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 1, stdout: "", stderr: tooBig(dir) });
  }, 90_000);
});
