/**
 * Persisted approval requests: `approvals.json` in the state folder.
 *
 * Format: `{ "version": 1, "approvals": ApprovalRecord[] }`, oldest first. A record is written
 * `pending` when a run blocks on a call (`--approvals block`) and becomes `approved` or `denied`
 * exactly once. It keeps the input, the subjects and the suggested "always" pattern, so a
 * decision can later be turned into a saved rule on an explicit command.
 *
 * Every change is a locked read-modify-write (json-file `updateJsonSync`) ending in an atomic
 * replace, so processes writing at once never lose a record. Pending records are kept until
 * decided; of the decided ones only the newest 500 are kept. A corrupt file is moved aside
 * (`approvals.json.corrupt-<time>`) by the next write; readers report it as a UserError.
 */
import * as v from "valibot";
import { UserError } from "../platform/errors.ts";
import { paths } from "../platform/paths.ts";
import { readJson, updateJsonSync } from "../state-file/json-file.ts";

export const APPROVALS_VERSION = 1;
const _KEEP_DECIDED = 500;

export const APPROVAL_STATUSES = ["pending", "approved", "denied"] as const;
export const DECIDERS = ["user", "cli", "rule", "headless"] as const;

const _recordSchema = () =>
  v.object({
    id: v.string(),
    runId: v.string(),
    sessionId: v.string(),
    callId: v.string(),
    tool: v.string(),
    input: v.unknown(),
    /** The subjects joined with ", " (what listings show). */
    subject: v.string(),
    subjects: v.array(v.string()),
    /** The pattern an "always" answer grants (`git *`, `*`). */
    suggestedPattern: v.string(),
    cwd: v.string(),
    status: v.picklist(APPROVAL_STATUSES),
    requestedAt: v.string(),
    decidedAt: v.optional(v.string()),
    decidedBy: v.optional(v.picklist(DECIDERS)),
    answer: v.optional(v.picklist(["once", "always"])),
  });

const _fileSchema = () => v.object({ version: v.literal(APPROVALS_VERSION), approvals: v.array(_recordSchema()) });
let _file: ReturnType<typeof _fileSchema> | undefined;

export type ApprovalRecord = v.InferOutput<ReturnType<typeof _recordSchema>>;
export type ApprovalStatus = ApprovalRecord["status"];
export type ApprovalDecider = (typeof DECIDERS)[number];
type ApprovalsFile = v.InferOutput<ReturnType<typeof _fileSchema>>;

export interface PendingApprovalInput {
  id: string;
  runId: string;
  sessionId: string;
  callId: string;
  tool: string;
  input: unknown;
  subjects: string[];
  cwd: string;
  suggestedPattern: string;
}

// The schema is built at the first read of a file that exists.
const _options = {
  get schema() {
    return (_file ??= _fileSchema());
  },
  version: APPROVALS_VERSION,
};

/** Persists a pending request. Creating an id that already exists returns the stored record. */
export function createPending(request: PendingApprovalInput, now = new Date()): ApprovalRecord {
  let stored: ApprovalRecord | undefined;
  updateJsonSync<ApprovalsFile>(paths.approvals(), _options, (current) => {
    const approvals = current?.approvals ?? [];
    stored = approvals.find((record) => record.id === request.id);
    if (stored) return undefined;
    stored = {
      id: request.id,
      runId: request.runId,
      sessionId: request.sessionId,
      callId: request.callId,
      tool: request.tool,
      input: request.input,
      subject: request.subjects.join(", "),
      subjects: [...request.subjects],
      suggestedPattern: request.suggestedPattern,
      cwd: request.cwd,
      status: "pending",
      requestedAt: now.toISOString(),
    };
    return { version: APPROVALS_VERSION, approvals: _prune([...approvals, stored]) };
  });
  return stored!;
}

/**
 * Decides one pending approval named by its id or a unique prefix of it. Throws a UserError when
 * nothing pending matches, when the prefix matches several pending ones, or when the only
 * match was already decided.
 */
export function decide(
  idOrPrefix: string,
  status: Exclude<ApprovalStatus, "pending">,
  by: ApprovalDecider,
  answer: "once" | "always" = "once",
  now = new Date(),
): ApprovalRecord {
  let decided: ApprovalRecord | undefined;
  updateJsonSync<ApprovalsFile>(paths.approvals(), _options, (current) => {
    const approvals = current?.approvals ?? [];
    const target = _resolve(approvals, idOrPrefix);
    decided = {
      ...target,
      status,
      decidedAt: now.toISOString(),
      decidedBy: by,
      ...(status === "approved" ? { answer } : {}),
    };
    return { version: APPROVALS_VERSION, approvals: _prune(approvals.map((record) => (record === target ? decided! : record))) };
  });
  return decided!;
}

function _resolve(approvals: readonly ApprovalRecord[], idOrPrefix: string): ApprovalRecord {
  const wanted = idOrPrefix.trim().toLowerCase();
  const matches = wanted ? approvals.filter((record) => record.id.startsWith(wanted)) : [];
  const exact = matches.find((record) => record.id === wanted);
  const candidates = exact ? [exact] : matches;
  const pending = candidates.filter((record) => record.status === "pending");
  if (pending.length === 1) return pending[0]!;
  if (pending.length > 1) throw new UserError(`"${idOrPrefix}" matches ${pending.length} pending approvals; give more of the id`);
  const only = candidates.length === 1 ? candidates[0]! : undefined;
  if (only) throw new UserError(`approval ${only.id} was already ${only.status}`);
  throw new UserError(`no pending approval matching "${idOrPrefix}"`);
}

function _prune(approvals: ApprovalRecord[]): ApprovalRecord[] {
  let excess = approvals.filter((record) => record.status !== "pending").length - _KEEP_DECIDED;
  if (excess <= 0) return approvals;
  return approvals.filter((record) => record.status === "pending" || excess-- <= 0);
}

function _readAll(): ApprovalRecord[] {
  const read = readJson(paths.approvals(), _options);
  if (read.status === "missing") return [];
  if (read.status === "corrupt") throw new UserError(`${paths.approvals()}: ${read.reason}. Move it aside to start afresh.`);
  return read.value.approvals;
}

/** Pending approvals, oldest first; with `cwd`, only those of runs in that directory. */
export function listPending(filter: { cwd?: string } = {}): ApprovalRecord[] {
  return _readAll().filter((record) => record.status === "pending" && (filter.cwd === undefined || record.cwd === filter.cwd));
}

export function get(id: string): ApprovalRecord | undefined {
  return _readAll().find((record) => record.id === id);
}

/** Every approval of one run, oldest first. */
export function forRun(runId: string): ApprovalRecord[] {
  return _readAll().filter((record) => record.runId === runId);
}
