/**
 * What a session takes from hooks and Claude Code settings: config `hooks`, and — once the user
 * trusted their exact content (lib/store/project-settings.ts; the REPL asks, lib/ui/project-trust.ts)
 * — the `hooks` and `permissions` of the project's `.claude/settings.json` and
 * `.claude/settings.local.json`. An untrusted file is left out with a notice saying why; so is
 * what it holds that shiro cannot use. --no-hooks drops every hook; the settings' permissions
 * still apply once trusted.
 */
import type { ResolvedConfig } from "../config/config.ts";
import { hookEntriesFromConfig, type HookEntry } from "../config/hooks-config.ts";
import { findProjectRoot } from "../config/project.ts";
import { paths } from "../platform/paths.ts";
import { relative } from "node:path";
import { claudeRuleLayers } from "../approval/claude-rules.ts";
import type { RuleLayer } from "../approval/rules.ts";
import type { AgentEvent } from "../events.ts";
import { createSessionHooks, type SessionHooks, type SessionStartSource } from "../extensions/hooks/session-hooks.ts";
import { notifyingDecision } from "../extensions/hooks/notify.ts";
import { createBlockingDecision, denyAll } from "../extensions/gate.ts";
import type { DecisionSource } from "../approval/request.ts";
import type { AgentFlags } from "../config/flags.ts";

export type { SessionEndReason, SessionHooks, SessionStartSource } from "../extensions/hooks/session-hooks.ts";
import type { StartupNotice } from "../notices.ts";
import type { CommandSandbox } from "../sandbox/session.ts";
import { readProjectSettings, type ProjectSettings } from "../store/project-settings.ts";
import type { ToolDefinition } from "../tools/types.ts";

/** Every hook this folder configures, trusted or not, in the order they run: `shiro hooks` and `/hooks` list them. */
export interface HookListing {
  entries: HookEntry[];
  /** The project's settings files when they exist; `trusted` says whether their hooks run. */
  project?: { paths: string[]; trusted: boolean };
  /** A settings file that could not be read. */
  error?: string;
}

export function listConfiguredHooks(configHooks: ResolvedConfig["file"]["hooks"], cwd: string): HookListing {
  const own = hookEntriesFromConfig(configHooks, paths.config());
  let project: ProjectSettings | undefined;
  try {
    project = readProjectSettings(findProjectRoot(cwd));
  } catch (error) {
    return { entries: own, error: error instanceof Error ? error.message : String(error) };
  }
  if (!project) return { entries: own };
  return { entries: [...own, ...project.hooks], project: { paths: project.paths, trusted: project.trusted } };
}

export interface SessionSettings {
  /** Absent with --no-hooks or when no hook is configured. */
  hooks?: SessionHooks;
  /** The trusted settings files' rules, one source each beside config (lib/approval/claude-rules.ts), mapped onto `tools`. */
  permissionLayers(tools: readonly ToolDefinition[]): RuleLayer[];
  /**
   * Who answers the session's questions: the front end's `decide`, else under `blocking`
   * (headless `--approvals block`) a persisted request, else nobody (`denyAll`). Notification
   * hooks hear of every question someone is asked.
   */
  decider(decide: DecisionSource | undefined, blocking: { runId: () => string; sessionId: string } | undefined): DecisionSource;
  /** PreCompact (`before`) and SessionStart `compact` (`after`) around an automatic compaction; absent without hooks. */
  onCompact?: (phase: "before" | "after") => Promise<AgentEvent[]>;
}

export interface SessionSettingsOptions {
  config: ResolvedConfig;
  cwd: string;
  /** `cwd`'s project, when the caller has found it already. */
  projectRoot?: string;
  mode: "headless" | "interactive";
  flags: Pick<AgentFlags, "noHooks" | "yolo">;
  sessionId: string;
  sandbox: CommandSandbox;
  /** Where hook events raised outside a turn go: the queue the run driver empties into the stream (the MCP one). */
  outside: AgentEvent[];
  /** SessionStart's `source` is `sessionSource`, else resume or startup; the SessionStart hooks run before this returns. */
  sessionSource?: SessionStartSource;
  resumed: boolean;
}

export async function openSessionSettings(options: SessionSettingsOptions, notices: StartupNotice[]): Promise<SessionSettings> {
  const projectRoot = options.projectRoot ?? findProjectRoot(options.cwd);
  const project = _trustedSettings(projectRoot, options.mode === "headless", notices);
  const entries = options.flags.noHooks ? [] : [...hookEntriesFromConfig(options.config.file.hooks, paths.config()), ...(project?.hooks ?? [])];
  const hooks =
    entries.length === 0
      ? undefined
      : createSessionHooks({
          entries,
          sessionId: options.sessionId,
          transcriptPath: paths.session(options.sessionId),
          cwd: options.cwd,
          projectRoot,
          sandbox: options.sandbox,
          permissionMode: options.flags.yolo ? "bypassPermissions" : "default",
          outside: options.outside,
        });
  await hooks?.sessionStart(options.sessionSource ?? (options.resumed ? "resume" : "startup"));
  return {
    hooks,
    permissionLayers(tools) {
      if (!project || project.permissions.length === 0) return [];
      const mapped = claudeRuleLayers(project.permissions, tools, { root: projectRoot, cwd: options.cwd }, (path) => relative(projectRoot, path));
      for (const why of mapped.skipped) notices.push({ code: "store", text: why });
      return mapped.layers;
    },
    decider(decide, blocking) {
      const asker =
        decide ??
        (blocking
          ? createBlockingDecision({
              get runId() {
                return blocking.runId();
              },
              sessionId: blocking.sessionId,
            })
          : undefined);
      if (!asker) return denyAll;
      return hooks ? notifyingDecision(asker, hooks) : asker;
    },
    ...(hooks
      ? {
          async onCompact(phase: "before" | "after") {
            const events: AgentEvent[] = [];
            await (phase === "before" ? hooks.preCompact("auto", undefined, events) : hooks.sessionStart("compact", events));
            return events;
          },
        }
      : {}),
  };
}

function _trustedSettings(root: string, headless: boolean, notices: StartupNotice[]): ProjectSettings | undefined {
  let project: ProjectSettings | undefined;
  try {
    project = readProjectSettings(root);
  } catch (error) {
    notices.push({ code: "store", text: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
  if (!project || (project.hooks.length === 0 && project.permissions.length === 0)) return undefined;
  if (!project.trusted) {
    notices.push({
      code: "store",
      text: `${project.paths.join(" and ")} not used: this folder's Claude Code settings are not trusted${headless ? "; a headless run never uses untrusted hooks or permissions (start shiro here once and answer y)" : ""}`,
    });
    return undefined;
  }
  for (const why of project.skipped) notices.push({ code: "store", text: why });
  return project;
}
