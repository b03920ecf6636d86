/**
 * The first two steps of wiring an agent session: the resolved config (with a local model
 * server standing in when no key is configured) and the session record (new, `-c`, `-r`, or
 * the one `shiro runs resume` names). What they find worth telling is returned as notices.
 */
import { isAbsolute, relative } from "node:path";
import { UserError } from "../platform/errors.ts";
import { findProjectRoot } from "../config/project.ts";
import { shortSessionId } from "../store/short-ids.ts";
import { resolveConfig, type ResolvedConfig } from "../config/config.ts";
import { sealedEnv } from "../secrets/key-vault.ts";
import { createSession, type SessionRecord } from "../store/session-record.ts";
import { findSession, newestForCwd } from "../store/sessions.ts";
import type { AgentFlags } from "../config/flags.ts";
import type { StartupNotice } from "../notices.ts";

/** No key for the chosen provider: headless exits 1 with this; the REPL opens provider setup instead. */
export class MissingKeyError extends UserError {
  override name = "MissingKeyError";
}

export interface SessionChoice {
  /** Continue exactly this session (used by `shiro runs resume`). */
  sessionId?: string;
  cwd: string;
  flags: Pick<AgentFlags, "resume" | "continue" | "force">;
  /** A headless `-r` of another project's session needs `--force`. */
  mode?: "headless" | "interactive";
}

/** Config flags as lib/config/config.ts wants them. */
function _configFlags(flags: AgentFlags) {
  return { provider: flags.provider, protocol: flags.protocol, model: flags.model, baseURL: flags.baseURL, agent: flags.agent, thinking: flags.think };
}

function _missingKey(config: ResolvedConfig): UserError {
  const env = config.preset.keyEnv ? `${config.preset.keyEnv} / SHIRO_API_KEY` : "SHIRO_API_KEY";
  return new MissingKeyError(
    `No API key for provider "${config.preset.id}". Run shiro and use /provider to set one, or set ${env}, or add "apiKey" to ${config.configPath}`,
  );
}

/** Resolves the config; without a key or an explicit provider, a local model server found running stands in. */
export async function resolveAgentConfig(flags: AgentFlags, env: NodeJS.ProcessEnv | undefined, notices: StartupNotice[]): Promise<ResolvedConfig> {
  const vars = env ?? sealedEnv();
  const config = resolveConfig({ flags: _configFlags(flags), env });
  if (config.apiKey) return config;
  if (!flags.provider && !vars.SHIRO_PROVIDER && !config.file.provider) {
    const { detectLocalServer } = await import("../providers/models.ts");
    const local = await detectLocalServer();
    if (local) {
      // The preset's default model may not be pulled on this server: take one it lists.
      const asked = flags.model || vars.SHIRO_MODEL || config.file.model;
      const chosen = asked ?? (local.models.includes(local.preset.defaultModel) ? undefined : local.models[0]);
      const found = resolveConfig({
        flags: { ..._configFlags(flags), provider: local.preset.id, baseURL: flags.baseURL ?? local.baseURL, model: chosen },
        env,
        file: config.file,
      });
      notices.push({ code: "local-server", server: local.preset.label, baseURL: local.baseURL, model: found.model });
      if (found.apiKey) return found;
      throw _missingKey(found);
    }
  }
  throw _missingKey(config);
}

/** The session this process runs in; `resumed` when it was read from disk. */
export function pickSession(choice: SessionChoice, config: ResolvedConfig, notices: StartupNotice[]): { session: SessionRecord; resumed: boolean } {
  const { flags, cwd } = choice;
  if (choice.sessionId) return { session: findSession(choice.sessionId), resumed: true };
  if (flags.resume) {
    const session = findSession(flags.resume);
    // Its paths and memory belong to another project: a headless run continues it only when told to.
    const rel = relative(findProjectRoot(cwd), session.cwd);
    if (choice.mode === "headless" && !flags.force && (rel.startsWith("..") || isAbsolute(rel))) {
      throw new UserError(
        `session ${shortSessionId(session.id)} was started in ${session.cwd}, not in this project: pass --force to continue it here, or run shiro there`,
      );
    }
    return { session, resumed: true };
  }
  if (flags.continue) {
    const found = newestForCwd(cwd);
    for (const text of found.notices) notices.push({ code: "store", text });
    if (found.session) {
      for (const live of found.live) notices.push({ code: "session-live", sessionId: live.id, pid: live.pid, outcome: "continue-other" });
      return { session: found.session, resumed: true };
    }
    if (found.live.length === 0) throw new UserError("no saved session for this directory");
    // Two processes never write one session: the live one keeps it, this one starts afresh.
    for (const live of found.live) notices.push({ code: "session-live", sessionId: live.id, pid: live.pid, outcome: "start-new" });
  }
  return { session: createSession({ cwd, provider: config.preset.id, model: config.model }), resumed: false };
}
