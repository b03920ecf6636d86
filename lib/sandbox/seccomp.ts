/**
 * The seccomp filter every bubblewrap-sandboxed command gets: it may not create Unix domain
 * sockets, so it cannot reach a daemon through a socket file the read-only file system still
 * lets it connect to (docker.sock, systemd's and D-Bus's sockets), and it may not use io_uring,
 * which could create sockets past the filter. Both fail with EPERM. A process of another
 * architecture (32-bit x86 on x86_64, x32) is killed, since its system calls would bypass the
 * checks. Supported on x64 and arm64; elsewhere there is no filter (docs/security.md says so).
 *
 * The program is classic BPF over `struct seccomp_data` (nr at 0, arch at 4, args[0] at 16,
 * little-endian), written once per process to a private temp folder removed at exit.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nodeOs } from "../platform/runtime.ts";

const _LD_ABS = 0x20;
const _JEQ = 0x15;
const _JGE = 0x35;
const _RET = 0x06;
const _ALLOW = 0x7fff0000;
const _KILL_PROCESS = 0x80000000;
const _ERRNO_EPERM = 0x00050001;
const _AF_UNIX = 1;
const _IO_URING_SETUP = 425;
const _X32_BIT = 0x40000000;

const _ARCHES: Record<string, { audit: number; socket: number; x32: boolean }> = {
  x64: { audit: 0xc000003e, socket: 41, x32: true },
  arm64: { audit: 0xc00000b7, socket: 198, x32: false },
};

type _Target = "next" | "allow" | "deny" | "kill";
type _Op = { code: number; k: number; jt?: _Target; jf?: _Target } | { label: "allow" | "deny" | "kill" };

/** The compiled filter for `arch` (`process.arch` names), or undefined where none is defined. */
export function buildSeccompFilter(arch: string = process.arch): Uint8Array | undefined {
  const spec = _ARCHES[arch];
  if (!spec) return undefined;
  const ops: _Op[] = [
    { code: _LD_ABS, k: 4 },
    { code: _JEQ, k: spec.audit, jt: "next", jf: "kill" },
    { code: _LD_ABS, k: 0 },
    ...(spec.x32 ? [{ code: _JGE, k: _X32_BIT, jt: "kill", jf: "next" } as _Op] : []),
    { code: _JEQ, k: _IO_URING_SETUP, jt: "deny", jf: "next" },
    { code: _JEQ, k: spec.socket, jt: "next", jf: "allow" },
    { code: _LD_ABS, k: 16 },
    { code: _JEQ, k: _AF_UNIX, jt: "deny", jf: "allow" },
    { label: "allow" },
    { label: "deny" },
    { label: "kill" },
  ];
  const at = (label: _Target, from: number) => {
    if (label === "next") return 0;
    const index = ops.findIndex((op) => "label" in op && op.label === label);
    return index - from - 1;
  };
  const returns = { allow: _ALLOW, deny: _ERRNO_EPERM, kill: _KILL_PROCESS };
  const bytes = new Uint8Array(ops.length * 8);
  const view = new DataView(bytes.buffer);
  ops.forEach((op, index) => {
    const offset = index * 8;
    if ("label" in op) {
      view.setUint16(offset, _RET, true);
      view.setUint32(offset + 4, returns[op.label], true);
      return;
    }
    view.setUint16(offset, op.code, true);
    view.setUint8(offset + 2, op.jt ? at(op.jt, index) : 0);
    view.setUint8(offset + 3, op.jf ? at(op.jf, index) : 0);
    view.setUint32(offset + 4, op.k, true);
  });
  return bytes;
}

let _written: string | null | undefined;

/** The filter as a file only this user can read, written on first use; undefined where none exists. */
export function seccompFilterFile(): string | undefined {
  if (_written !== undefined) return _written ?? undefined;
  const filter = buildSeccompFilter();
  if (!filter) {
    _written = null;
    return undefined;
  }
  const dir = mkdtempSync(join(nodeOs().tmpdir(), "shiro-seccomp-"));
  const file = join(dir, "filter.bpf");
  writeFileSync(file, filter, { mode: 0o600 });
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  _written = file;
  return file;
}
