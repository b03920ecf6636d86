/**
 * Phase marks on the way to the first model request, for `bun run bench` and for anyone asking
 * where a slow start goes. Off unless `SHIRO_TRACE_STARTUP=1` is in the environment when the
 * process starts; off, every call is one boolean test and the model client is returned as it is.
 *
 * Contract: each phase is marked once, the first time its end is reached, in milliseconds since
 * the process started (`performance.now()`, whose origin is the process's start). When the first
 * request is handed to the model client, one JSON line goes to the sink (cmd/_start.ts gives it
 * lib/ui/output.ts's stderr writer; without a sink nothing is written) and tracing stops:
 *
 *   {"type":"startup-trace","marks":{"config":9.1,…,"connect":31.0},"phases":{"config":9.1,…},"cpu":{"config":8.2,…},"main":{"config":7.9,…}}
 *
 * `marks` are the cumulative times; `phases` the time each phase took, from the previous mark
 * (the first from the process start); `cpu` the processor time (user and system, every thread
 * of the process) each phase used, which a loaded machine disturbs less than the wall clock;
 * `main` the processor time of the main thread alone (the work on the path to the request, without
 * the compiler and collector threads beside it), where the runtime reports it (Bun, Node ≥ 23.9).
 * The phases, in the order they end:
 * - `config`: the runtime started, config files, flags and the run scope read;
 * - `tools`: the session read or created, sandbox, plugins, skills, MCP servers, memory stores
 *   opened, settings and the tool list assembled;
 * - `memory`: the memory chosen for this run's prompt;
 * - `prompt`: the session saved with its prompt, the run log opened and its first events written,
 *   the system prompt built;
 * - `connect`: the request body built and handed to the HTTP client.
 * The line is a diagnostic, not a format other programs may rely on beyond these names.
 */
import type { ModelClient } from "../providers/client.ts";

export type StartupPhase = "config" | "tools" | "memory" | "prompt" | "connect";

let _on = typeof process !== "undefined" && process.env.SHIRO_TRACE_STARTUP === "1";
const _marks: Partial<Record<StartupPhase, number>> = {};
const _cpu: Partial<Record<StartupPhase, number>> = {};
const _main: Partial<Record<StartupPhase, number>> = {};
let _sink: ((line: string) => void) | undefined;

/** Where the trace line goes (one call, at start-up, by the command layer). */
export function setStartupTraceSink(sink: (line: string) => void): void {
  _sink = sink;
}

/** Marks the end of `phase` (the first call per phase counts). */
export function markStartup(phase: StartupPhase): void {
  if (!_on || _marks[phase] !== undefined) return;
  _marks[phase] = Math.round(performance.now() * 10) / 10;
  const used = process.cpuUsage();
  _cpu[phase] = (used.user + used.system) / 1000;
  const thread = typeof process.threadCpuUsage === "function" ? process.threadCpuUsage() : undefined;
  if (thread) _main[phase] = (thread.user + thread.system) / 1000;
  if (phase === "connect") _report();
}

/** `value`, after marking the end of `phase`: for marks inside an expression. */
export function tracedStartup<T>(phase: StartupPhase, value: T): T {
  markStartup(phase);
  return value;
}

/** `client` itself when tracing is off; else the same client that marks `connect` at its first request. */
export function traceFirstRequest(client: ModelClient): ModelClient {
  if (!_on) return client;
  return {
    stream(request) {
      markStartup("connect");
      return client.stream(request);
    },
    get protocol() {
      return client.protocol;
    },
  };
}

function _report(): void {
  _on = false;
  const main = Object.keys(_main).length > 0 ? { main: _differences(_main) } : {};
  _sink?.(`${JSON.stringify({ type: "startup-trace", marks: _marks, phases: _differences(_marks), cpu: _differences(_cpu), ...main })}\n`);
}

/** Each phase's share of a cumulative measure: its value less the previous phase's. */
function _differences(cumulative: Partial<Record<StartupPhase, number>>): Record<string, number> {
  const phases: Record<string, number> = {};
  let previous = 0;
  for (const [phase, at] of Object.entries(cumulative)) {
    phases[phase] = Math.round((at - previous) * 10) / 10;
    previous = at;
  }
  return phases;
}
