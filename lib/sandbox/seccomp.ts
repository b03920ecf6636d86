/**
 * The seccomp filter every bubblewrap-sandboxed command gets: it may not create Unix domain
 * sockets, so it cannot reach a daemon through a socket file the read-only file system still
 * lets it connect to (docker.sock, systemd's and D-Bus's sockets), and it may not use io_uring,
 * which could create sockets past the filter. Both fail with EPERM. A process of another
 * architecture (32-bit x86 on x86_64, x32) is killed, since its system calls would bypass the
 * checks. Supported on x64 and arm64; elsewhere there is no filter (docs/security.md says so).
 *
 * The program is classic BPF over `struct seccomp_data` (nr at 0, arch at 4, args[0] at 16,
 * little-endian). bwrap reads it from a file at every spawn (a `sh` in front opens it as fd 3), so
 * the file must be one no sandboxed command can change: one that could would unload the filter of
 * the next command. It is `sandbox/seccomp-<arch>.bpf` in the state folder, which every sandboxed
 * command sees hidden (hidden-paths.ts: an empty read-only folder), is never removed (its bytes
 * are a function of the architecture: nothing accumulates, a killed process leaves nothing behind),
 * and is checked once per process: rewritten (atomically, mode 0600) when its bytes differ or it is
 * not a plain file. `filterReachableBy` is the check the sandbox makes before each command.
 */
import { lstatSync, readFileSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { paths } from "../platform/paths.ts";
import { writeBytesAtomic } from "../state-file/json-file.ts";

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

/** The filter as a file in the state folder, checked or written on first use; undefined where no filter exists. Throws when it cannot be written. */
export function seccompFilterFile(): string | undefined {
  if (_written !== undefined) return _written ?? undefined;
  const filter = buildSeccompFilter();
  if (!filter) {
    _written = null;
    return undefined;
  }
  const file = paths.seccompFilter(process.arch);
  if (!_holds(file, filter)) writeBytesAtomic(file, filter);
  _written = file;
  return file;
}

/**
 * True when a command that may write `writable` (the workspace, its extra folders) could change
 * `file`: it lies inside one of them and under none of the folders `hidden` mounts over.
 */
export function filterReachableBy(file: string, writable: readonly string[], hidden: readonly string[]): boolean {
  const inside = (folder: string) => {
    const path = relative(folder, file);
    return path === "" || (!path.startsWith("..") && !isAbsolute(path));
  };
  return writable.some(inside) && !hidden.some(inside);
}

/** True when `file` is a plain file (not a link) holding exactly `bytes`. */
function _holds(file: string, bytes: Uint8Array): boolean {
  try {
    if (!lstatSync(file).isFile()) return false;
    const kept = readFileSync(file);
    return kept.length === bytes.length && kept.every((byte, at) => byte === bytes[at]);
  } catch {
    return false;
  }
}
