/**
 * An editor for the ACP end-to-end tests: `dist/shiro acp` runs as a child process and the
 * official library's client side (`client()` of @agentclientprotocol/sdk) talks to it over the
 * child's real stdin and stdout. Every line shiro writes is checked on its way in: it must be one
 * JSON-RPC message valid against the vendored protocol schema's `Agent` branch, and responses,
 * requests and notifications also against the definition their method names. Whatever fails is
 * listed in `invalid`; stdout bytes that are no message at all are listed too.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import Ajv2020 from "ajv/dist/2020.js";
import { BINARY, binaryEnv, ROOT } from "./_harness.ts";

const _SCHEMA = JSON.parse(readFileSync(join(ROOT, "test", "fixtures", "acp-schema", "schema.json"), "utf8"));
const _ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
_ajv.addSchema(_SCHEMA, "acp");
const _agentMessage = _ajv.compile({ $ref: "acp#/anyOf/0" });
const _RESPONSES: Record<string, string> = {
  initialize: "InitializeResponse",
  "session/new": "NewSessionResponse",
  "session/load": "LoadSessionResponse",
  "session/set_mode": "SetSessionModeResponse",
  "session/prompt": "PromptResponse",
};
const _REQUESTS: Record<string, string> = {
  "session/request_permission": "RequestPermissionRequest",
  "fs/read_text_file": "ReadTextFileRequest",
  "fs/write_text_file": "WriteTextFileRequest",
  "terminal/create": "CreateTerminalRequest",
  "terminal/output": "TerminalOutputRequest",
  "terminal/kill": "KillTerminalRequest",
  "terminal/release": "ReleaseTerminalRequest",
};
const _NOTIFICATIONS: Record<string, string> = { "session/update": "SessionNotification", "$/cancel_request": "CancelRequestNotification" };

function _check(definition: string, value: unknown): string | undefined {
  const validate = _ajv.getSchema(`acp#/$defs/${definition}`);
  if (!validate) return `no definition ${definition}`;
  return validate(value) ? undefined : `${definition}: ${_ajv.errorsText(validate.errors)}`;
}

/**
 * What is wrong with one message an agent sent: not an `Agent` message of the schema, or its
 * params (result) not the definition its method (the request it answers, `answering`) names.
 */
export function agentMessageProblems(message: Record<string, any>, answering?: string): string[] {
  const problems: string[] = [];
  if (!_agentMessage(message)) problems.push(`not an Agent message: ${_ajv.errorsText(_agentMessage.errors)}`);
  const method = message.method as string | undefined;
  let problem: string | undefined;
  if (method && "id" in message) problem = _REQUESTS[method] ? _check(_REQUESTS[method]!, message.params) : `unexpected request ${method}`;
  else if (method) problem = _NOTIFICATIONS[method] ? _check(_NOTIFICATIONS[method]!, message.params) : `unexpected notification ${method}`;
  else if ("result" in message)
    problem = answering && _RESPONSES[answering] ? _check(_RESPONSES[answering]!, message.result) : `a result for an unknown request`;
  if (problem) problems.push(problem);
  return problems;
}

export interface AcpClientOptions {
  cwd: string;
  home: string;
  env: Record<string, string>;
  args?: string[];
  /** Answers each permission question (default: reject once). */
  permission?: (params: acp.RequestPermissionRequest) => acp.PermissionOptionKind | "cancelled" | Promise<acp.PermissionOptionKind | "cancelled">;
  /** The editor's buffers, by absolute path (fs delegation). */
  buffers?: Map<string, string>;
}

/** A terminal the test editor opened for the agent: a real child process, its output kept. */
export interface FakeTerminal {
  params: acp.CreateTerminalRequest;
  output: string;
  killed: boolean;
  released: boolean;
}

export interface AcpTestClient {
  readonly agent: acp.ClientContext;
  readonly child: ChildProcess;
  /** Every message shiro sent, parsed, in order. */
  readonly sent: Record<string, any>[];
  /** Every `session/update`'s update, in order. */
  readonly updates: acp.SessionUpdate[];
  readonly permissions: acp.RequestPermissionRequest[];
  readonly reads: acp.ReadTextFileRequest[];
  readonly writes: acp.WriteTextFileRequest[];
  /** Terminals opened through `terminal/create`, by id. */
  readonly terminals: Map<string, FakeTerminal>;
  /** Schema failures and stdout lines that were not messages. */
  readonly invalid: string[];
  stderr(): string;
  /** Closes stdin and waits for the process to end (killed after 10 s). */
  close(): Promise<number | null>;
}

export function startAcpClient(options: AcpClientOptions): AcpTestClient {
  const child = spawn(BINARY, ["acp", ...(options.args ?? [])], {
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "pipe"],
    env: binaryEnv(options.home, options.env),
  });
  const sent: Record<string, any>[] = [];
  const updates: acp.SessionUpdate[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const reads: acp.ReadTextFileRequest[] = [];
  const writes: acp.WriteTextFileRequest[] = [];
  const terminals = new Map<string, FakeTerminal>();
  const processes = new Map<string, ChildProcess>();
  const invalid: string[] = [];
  const asked = new Map<string | number, string>();
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));

  const inspect = (line: string) => {
    let message: Record<string, any>;
    try {
      message = JSON.parse(line);
    } catch {
      invalid.push(`not JSON on stdout: ${line.slice(0, 200)}`);
      return;
    }
    sent.push(message);
    for (const problem of agentMessageProblems(message, asked.get(message.id))) invalid.push(`${problem}: ${line.slice(0, 300)}`);
  };

  let pending = "";
  const fromChild = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout!.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8");
        let at: number;
        while ((at = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, at);
          pending = pending.slice(at + 1);
          if (line.trim()) inspect(line);
        }
        controller.enqueue(new Uint8Array(chunk));
      });
      child.stdout!.on("end", () => controller.close());
    },
  });
  const toChild = new WritableStream<Uint8Array>({
    write(chunk) {
      for (const line of new TextDecoder().decode(chunk).split("\n")) {
        if (!line.trim()) continue;
        const message = JSON.parse(line);
        if (message.method && message.id !== undefined) asked.set(message.id, message.method);
      }
      return new Promise<void>((resolve, reject) => child.stdin!.write(chunk, (error) => (error ? reject(error) : resolve())));
    },
  });

  const app = acp
    .client({ name: "shiro-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      const answer = (await options.permission?.(params)) ?? "reject_once";
      if (answer === "cancelled") return { outcome: { outcome: "cancelled" } };
      const option = params.options.find((candidate) => candidate.kind === answer);
      if (!option) throw new Error(`no ${answer} option offered`);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      reads.push(params);
      const text = options.buffers?.get(params.path);
      if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
      return { content: text };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      writes.push(params);
      options.buffers?.set(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, ({ params }) => {
      const terminalId = `term-${terminals.size + 1}`;
      const terminal: FakeTerminal = { params, output: "", killed: false, released: false };
      const process = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, stdio: ["ignore", "pipe", "pipe"] });
      process.stdout!.on("data", (chunk: Buffer) => (terminal.output += chunk.toString("utf8")));
      const timer = setTimeout(() => process.kill("SIGKILL"), 30_000);
      process.on("close", () => clearTimeout(timer));
      terminals.set(terminalId, terminal);
      processes.set(terminalId, process);
      return { terminalId };
    })
    .onRequest(acp.methods.client.terminal.output, ({ params }) => ({ output: terminals.get(params.terminalId)!.output, truncated: false }))
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
      terminals.get(params.terminalId)!.killed = true;
      processes.get(params.terminalId)!.kill("SIGTERM");
      return {};
    })
    .onRequest(acp.methods.client.terminal.release, ({ params }) => {
      terminals.get(params.terminalId)!.released = true;
      processes.get(params.terminalId)!.kill("SIGTERM");
      return {};
    });
  const connection = app.connect(acp.ndJsonStream(toChild, fromChild));

  return {
    agent: connection.agent,
    child,
    sent,
    updates,
    permissions,
    reads,
    writes,
    terminals,
    invalid,
    stderr: () => stderr,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.on("close", (code) => {
          clearTimeout(timer);
          resolve(code);
        });
        child.stdin!.end();
      }),
  };
}

/** `initialize` with the given client capabilities (no fs, no terminal by default). */
export function initialize(client: AcpTestClient, capabilities: acp.ClientCapabilities = {}): Promise<acp.InitializeResponse> {
  return client.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: capabilities,
    clientInfo: { name: "shiro-e2e", version: "1" },
  });
}
