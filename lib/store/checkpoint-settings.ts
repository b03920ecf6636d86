/**
 * What bounds a workspace's checkpoints, and the defaults config `checkpoints` falls back to.
 * Apart from checkpoints.ts so a session can read its settings without loading the store, which
 * is first needed when a turn's first write or exec call runs.
 */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_KEEP_DAYS = 30;
export const DEFAULT_MAX_PER_PROJECT = 200;

export interface CheckpointSettings {
  maxFileBytes: number;
  keepDays: number;
  maxPerProject: number;
}
