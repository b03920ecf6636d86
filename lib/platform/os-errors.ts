/**
 * OS errors as sentences. `describeErrno` names what an errno means for the user in a few words
 * ("the disk is full"); `StateWriteError` is what a failed state-file write throws: one line
 * naming the file, the cause, and that the file's previous version (or its earlier lines) is
 * intact, because json-file writes a temp file and renames it, or appends one whole line.
 * The errno stays on `code`, so callers that branch on it keep working.
 */
import { UserError } from "./errors.ts";

const _PHRASES: Record<string, string> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted",
  ENAMETOOLONG: "the name is too long for the file system",
  ENOTDIR: "a file stands where a folder is expected on that path",
  EEXIST: "a file stands where a folder is expected on that path",
  EISDIR: "a folder stands where the file should be",
  ENOENT: "a folder on that path does not exist",
  EIO: "the device reported an I/O error",
  EMFILE: "too many files are open",
  ENFILE: "too many files are open",
  EBADF: "the file is not open for writing",
  EPIPE: "the reader went away",
  ELOOP: "the path has too many symbolic links",
  EFBIG: "the file is too large",
  ETXTBSY: "the file is busy",
  EBUSY: "the file is busy",
};

/** `the disk is full (ENOSPC)`; an unknown code keeps the system's own message. */
export function describeErrno(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const phrase = code ? _PHRASES[code] : undefined;
  if (phrase) return `${phrase} (${code})`;
  const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

export type StateWriteKind = "replace" | "append" | "lock";

/** A state file could not be written. Exit 1, one line, the errno on `code`. */
export class StateWriteError extends UserError {
  override name = "StateWriteError";
  readonly code?: string;
  constructor(
    readonly path: string,
    cause: unknown,
    kind: StateWriteKind,
    existed: boolean,
  ) {
    const intact =
      kind === "lock"
        ? "no state file was changed"
        : kind === "append"
          ? existed
            ? "the lines already in it are intact"
            : "nothing was written"
          : existed
            ? "its previous version is intact"
            : "nothing was written";
    const verb = kind === "lock" ? "create the lock file" : kind === "append" ? "append to" : "save";
    super(`cannot ${verb} ${path}: ${describeErrno(cause)}; ${intact}`);
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
    this.cause = cause;
  }
}
