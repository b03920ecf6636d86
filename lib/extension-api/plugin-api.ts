/**
 * The plugin API: what a plugin is (plugins/ implements it), what it is given, and the host
 * contract the agent and the gate call. Types only, and no import of plugins/: the host that
 * loads the builtin plugins is lib/extensions/plugin-host.ts.
 *
 * Host contracts:
 * - `checkToolCall` asks every `beforeToolCall` hook in order; the first string blocks, and a
 *   hook that throws blocks too. The returned reason reads `Blocked by the <name> plugin: <why>`.
 *   A hook may instead return `{ ask }`: the call is put to the user even under --yolo or an
 *   allow rule (refused where nobody can answer); a later hook's block still wins, and the
 *   first question is the one returned.
 * - `runAfterTurn` runs every `afterTurn` hook in order; one that throws does not stop the rest,
 *   and the failures come back as values.
 * - Loading never throws: an unknown name, a factory that throws or a manifest that does not
 *   compile becomes a `PluginFailure` and the plugin is skipped.
 */
import type { ToolDefinition, ToolEffect } from "../tools/types.ts";

/** What a guard hook sees of a call. `input` is the raw arguments, not yet validated. */
export interface ToolCallInfo {
  toolName: string;
  input: unknown;
  cwd: string;
  /** The tool's declared effect; undefined for an unknown tool. */
  effect?: ToolEffect;
  /** The paths the tool declares for this call, normalised as permission rules see them (lib/approval/rules.ts). */
  paths?: readonly string[];
  /** Set when a checkpoint covers what this call changes inside the workspace (files up to `maxFileBytes`; docs/checkpoints.md). */
  checkpoint?: { maxFileBytes: number };
  /** The shell command the call runs, for a tool that declares `command` (bash, or any other shell tool). */
  command?: string;
}

export interface Plugin {
  name: string;
  description: string;
  /** Tools the plugin adds; they belong to no tool set. */
  tools?: ToolDefinition[];
  /**
   * Names of this plugin's own tools that run without asking (unless a rule names them): the
   * host gives each `decision: "allow"` unless it declares one. Its other tools ask by default.
   */
  autoApprove?: string[];
  /** Returns a reason to refuse the call, a question to put to the user, or undefined to let it through. */
  beforeToolCall?(call: ToolCallInfo): ToolCallVerdict | undefined | Promise<ToolCallVerdict | undefined>;
  /** Runs after every turn (formatter, bell). */
  afterTurn?(): void | Promise<void>;
  /** Text added to the system prompt. */
  appendix?: string;
}

/** A reason to refuse, or `{ ask }`: what the user is asked (and what the model reads when nobody can answer). */
export type ToolCallVerdict = string | ToolCallQuestion;

export interface ToolCallQuestion {
  ask: string;
}

export interface PluginContext {
  /** The workspace root. */
  cwd: string;
  /** Where a plugin may write terminal signals (the bell); defaults to process.stderr. */
  writeStderr: (text: string) => void;
  /** The argv a hook must spawn to run `argv` in the session's sandbox; throws when commands are refused. */
  wrapCommand?: (argv: readonly string[]) => string[];
}

export type PluginFactory = (context: PluginContext) => Plugin;

export interface PluginFailure {
  name: string;
  error: string;
}

export interface ActivePlugin {
  name: string;
  description: string;
  installed: boolean;
}

/** A declarative plugin from the registry: deny rules over tool names, paths and commands. */
export interface InstalledPluginManifest {
  name: string;
  description: string;
  appendix?: string;
  deny: InstalledDenyRule[];
}

export interface InstalledDenyRule {
  tools: string[];
  /** Case-insensitive regular expressions; at least one of the two is present. */
  pathPattern?: string;
  commandPattern?: string;
  reason: string;
}

export interface PluginHost {
  /** True for the host of `--no-plugins`: nothing is loaded, not even the guard. */
  readonly disabled: boolean;
  active(): ActivePlugin[];
  failures(): PluginFailure[];
  loadInstalled(manifests: readonly InstalledPluginManifest[]): void;
  /** The block reason, a question (`The <name> plugin asks: <why>`), or undefined when every guard lets the call through. */
  checkToolCall(call: ToolCallInfo): Promise<ToolCallVerdict | undefined>;
  runAfterTurn(): Promise<PluginFailure[]>;
  /** Plugin tools, those in their plugin's `autoApprove` declared `allow`; when two plugins offer the same name, the earlier one wins. */
  tools(): ToolDefinition[];
  appendices(): string[];
}
