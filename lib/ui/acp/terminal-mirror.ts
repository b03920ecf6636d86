/**
 * A tool's live output shown in the editor's terminal, when the client offers `terminal`. shiro
 * still runs the command itself (in its sandbox, with its environment and its limits); the
 * editor's terminal runs only `tail -n +1 -f` on a file of shiro's (mode 0600 in a private
 * folder) that the output is appended to, so nothing runs outside shiro's confinement and the
 * terminal shows exactly what the model will read. When the tool ends, the mirror waits until the
 * terminal has shown every byte (bounded), then stops `tail` and releases the terminal; the editor
 * keeps displaying a released terminal's output. Not on Windows (no `tail`): output stays text.
 */
import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";

/** How long an ending mirror waits for the terminal to catch up before it stops it anyway. */
const _CATCH_UP_MS = 2_000;

export interface TerminalPeer {
  createTerminal(params: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse>;
  terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse>;
  killTerminal(params: acp.KillTerminalRequest): Promise<void>;
  releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<void>;
}

export interface TerminalMirror {
  /** Appends a chunk of call `callId`'s output; the terminal's id (created on the first chunk), or undefined when none could be had. */
  write(callId: string, chunk: string): Promise<string | undefined>;
  /** The call ended: its terminal shows everything, then is stopped and released. Its id, if it had one. */
  end(callId: string): Promise<string | undefined>;
  /** Ends every mirror and removes the files. */
  close(): Promise<void>;
}

interface _Mirror {
  file: string;
  terminalId?: string;
  written: number;
  /** Writes to the file, in order. */
  queue: Promise<unknown>;
}

export function createTerminalMirror(sessionId: () => string, peer: TerminalPeer, cwd: string): TerminalMirror | undefined {
  if (process.platform === "win32") return undefined;
  let folder: Promise<string> | undefined;
  const mirrors = new Map<string, _Mirror>();
  let count = 0;
  const start = async (callId: string): Promise<_Mirror> => {
    folder ??= mkdtemp(join(tmpdir(), "shiro-acp-"));
    const file = join(await folder, `output-${++count}.txt`);
    const mirror: _Mirror = { file, written: 0, queue: writeFile(file, "", { mode: 0o600 }) };
    mirrors.set(callId, mirror);
    await mirror.queue;
    try {
      mirror.terminalId = (await peer.createTerminal({ sessionId: sessionId(), command: "tail", args: ["-n", "+1", "-f", file], cwd })).terminalId;
    } catch {
      // The editor would not open one: the output stays text.
    }
    return mirror;
  };
  const end = async (callId: string): Promise<string | undefined> => {
    const mirror = mirrors.get(callId);
    if (!mirror) return undefined;
    mirrors.delete(callId);
    await mirror.queue.catch(() => undefined);
    const terminalId = mirror.terminalId;
    if (terminalId !== undefined) {
      const ids = { sessionId: sessionId(), terminalId };
      try {
        const until = Date.now() + _CATCH_UP_MS;
        while (Date.now() < until && Buffer.byteLength((await peer.terminalOutput(ids)).output) < mirror.written) await new Promise((r) => setTimeout(r, 25));
        await peer.killTerminal(ids);
        await peer.releaseTerminal(ids);
      } catch {
        // The editor dropped the terminal already.
      }
    }
    await rm(mirror.file, { force: true });
    return terminalId;
  };
  return {
    async write(callId, chunk) {
      try {
        const mirror = mirrors.get(callId) ?? (await start(callId));
        mirror.written += Buffer.byteLength(chunk);
        mirror.queue = mirror.queue.then(() => appendFile(mirror.file, chunk));
        await mirror.queue;
        return mirror.terminalId;
      } catch {
        // No private file to be had (a full disk, no temp folder): the output stays text.
        return undefined;
      }
    },
    end,
    async close() {
      await Promise.all([...mirrors.keys()].map(end));
      if (folder) await rm(await folder, { recursive: true, force: true });
    },
  };
}
