/**
 * The numbers in the built-in tools' contracts that both a tool's declaration (its schema's bounds
 * and defaults, which the model reads) and what a call does (lib/tools/*-run.ts) depend on. They
 * live apart from both, so a declaration never loads what its call does to know them.
 */

/** Lines read_file returns by default, and the per-file default of read_many_files. */
export const READ_LIMIT = 2000;
/** Files one read_many_files call may name. */
export const READ_MANY_MAX = 20;
/** Entries list_dir shows before its limit note. */
export const LIST_CAP = 300;
export const LIST_DEPTH = { default: 2, max: 6 } as const;
/** Paths glob returns at most (and by default). */
export const GLOB_CAP = 200;
/** A bash call's timeout in ms: its default and the bounds its schema allows. */
export const BASH_TIMEOUT = { default: 120_000, min: 1_000, max: 600_000 } as const;
/** Deadline of a whole web_fetch, redirects included, unless its options say otherwise. */
export const WEB_FETCH_TIMEOUT_MS = 20_000;
