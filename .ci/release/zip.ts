/**
 * A minimal zip writer for the Windows archive: deflated regular files, a fixed 1980-01-01
 * timestamp and no extra fields, so the same files always make the same bytes. No zip64: every
 * file and the whole archive stay under 4 GiB (a shiro binary is ~120 MB).
 */
import { crc32, deflateRawSync } from "node:zlib";

export interface ZipFile {
  name: string;
  data: Uint8Array;
}

// MS-DOS date 1980-01-01, time 00:00: the earliest a zip can say.
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;

/** The zip archive of `files`, in the order given. */
export function writeZip(files: ZipFile[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, "utf8");
    const compressed = deflateRawSync(file.data);
    const crc = crc32(file.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    _writeEntryFields(local, 4, crc, compressed.length, file.data.length, name.length);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    _writeEntryFields(central, 6, crc, compressed.length, file.data.length, name.length);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const centralSize = centrals.reduce((total, part) => total + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

/**
 * The fields the local and the central header share, from "version needed" to "extra length"
 * (26 bytes at `at`): zip 2.0, UTF-8 names, deflate, the fixed timestamp, no extra field.
 */
function _writeEntryFields(header: Buffer, at: number, crc: number, compressedSize: number, size: number, nameLength: number): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(0x0800, at + 2);
  header.writeUInt16LE(8, at + 4);
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(crc, at + 10);
  header.writeUInt32LE(compressedSize, at + 14);
  header.writeUInt32LE(size, at + 18);
  header.writeUInt16LE(nameLength, at + 22);
  header.writeUInt16LE(0, at + 24);
}
