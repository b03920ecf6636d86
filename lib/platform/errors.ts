/**
 * Typed errors that cross from lib/ to cmd/. Library code throws these; cmd/ alone turns them
 * into a one-line message on stderr and an exit code.
 */

/** Bad command-line usage: exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A failure the user can act on (bad config, missing session, no key): exit 1 by default. */
export class UserError extends Error {
  override name = "UserError";
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * Configuration shiro cannot accept (config.json, its permission rules, a SHIRO_* variable, a
 * preset that lacks what it needs): exit 2, as bad usage is, so a script tells "fix the setup"
 * from "the run failed".
 */
export class ConfigError extends UserError {
  override name = "ConfigError";
  constructor(message: string) {
    super(message, 2);
  }
}

export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  blocked: 3,
  maxSteps: 4,
  interrupted: 130,
} as const;
