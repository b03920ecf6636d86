/**
 * A minimal ustar writer and reader for release archives: regular files only, written with fixed
 * owner, group and mtime so the same files always make the same bytes. The reader finds one
 * regular file by name in an uncompressed tar (what `shiro update` needs from a release archive).
 */

export interface TarFile {
  /** Path inside the archive, at most 100 bytes. */
  name: string;
  data: Uint8Array;
  /** Unix permission bits, e.g. 0o755. */
  mode: number;
}

const BLOCK = 512;

/** Writes `files` (in the order given) with mtime `mtimeSeconds`, uid/gid 0, and the two zero end blocks. */
export function writeTar(files: TarFile[], mtimeSeconds: number): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    parts.push(_header(file, mtimeSeconds), Buffer.from(file.data));
    const pad = (BLOCK - (file.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** The bytes of the regular file `name` in `tar`, or undefined when it holds none by that name. */
export function readTarFile(tar: Uint8Array, name: string): Buffer | undefined {
  const bytes = Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength);
  let offset = 0;
  while (offset + BLOCK <= bytes.length) {
    const header = bytes.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return undefined;
    const entryName = _field(header, 345, 155) ? `${_field(header, 345, 155)}/${_field(header, 0, 100)}` : _field(header, 0, 100);
    const size = parseInt(_field(header, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const start = offset + BLOCK;
    if (!Number.isFinite(size) || start + size > bytes.length) throw new Error("the archive is truncated or not a tar file");
    if ((type === "0" || type === "\0") && entryName.replace(/^\.\//, "") === name) return Buffer.from(bytes.subarray(start, start + size));
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return undefined;
}

function _header(file: TarFile, mtimeSeconds: number): Buffer {
  const name = Buffer.from(file.name, "utf8");
  if (name.length > 100) throw new Error(`tar entry name too long: ${file.name}`);
  const header = Buffer.alloc(BLOCK);
  name.copy(header, 0);
  _octal(header, 100, 8, file.mode);
  _octal(header, 108, 8, 0);
  _octal(header, 116, 8, 0);
  _octal(header, 124, 12, file.data.length);
  _octal(header, 136, 12, mtimeSeconds);
  header.fill(0x20, 148, 156);
  header[156] = 0x30;
  header.write("ustar\u000000", 257, "latin1");
  header.write("root", 265, "latin1");
  header.write("root", 297, "latin1");
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, "0")}\u0000 `, 148, "latin1");
  return header;
}

function _octal(header: Buffer, offset: number, width: number, value: number): void {
  header.write(`${value.toString(8).padStart(width - 1, "0")}\u0000`, offset, "latin1");
}

function _field(header: Buffer, offset: number, width: number): string {
  const raw = header.subarray(offset, offset + width);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? width : end).toString("utf8");
}
