/**
 * Headless Chromium for tests, driven over the DevTools protocol with a small client of our own
 * (Bun's WebSocket; no browser download, no dependency). The browser is started with the network
 * off (no background networking, component updates or sync, a fresh profile) and every request a
 * page makes is recorded, so a test can assert a page loaded nothing. Every step is bounded in
 * time; `close()` kills the browser's own process group and removes the profile.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findOnPath, hostPackage, hostReady } from "../host-packages.ts";

/** $SHIRO_CHROMIUM, or `chromium` on PATH (Debian's package puts it in /usr/bin). */
export const CHROMIUM = process.env.SHIRO_CHROMIUM ?? findOnPath("chromium") ?? "chromium";
const _PACKAGE = hostPackage("Chromium", "apt-get install -y chromium", existsSync(CHROMIUM), `${CHROMIUM} is missing`);

export interface ChromiumPage {
  /** Every URL the page asked for (Network.requestWillBeSent). */
  readonly requests: string[];
  send(method: string, params?: Record<string, unknown>): Promise<any>;
  /** Evaluates an expression in the page and returns its value (JSON-shaped). */
  evaluate<T>(expression: string): Promise<T>;
  close(): Promise<void>;
}

/** Whether this machine has the browser; under CI=true a missing one is a failure, not a skip. */
export function chromiumAvailable(): boolean {
  if (hostReady(_PACKAGE)) return true;
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing; CI installs Debian's chromium package (.ci/run)`);
  return false;
}

/** Starts Chromium and opens `url` in a new page; resolves once the page has loaded. */
export async function openInChromium(url: string, timeoutMs = 20_000): Promise<ChromiumPage> {
  const profile = mkdtempSync(join(tmpdir(), "shiro-chromium-"));
  const child = spawn(
    CHROMIUM,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-extensions",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    // TMPDIR inside the profile: Chromium makes its own org.chromium.Chromium.* folder there, which a SIGKILL leaves behind.
    { stdio: ["ignore", "ignore", "pipe"], detached: true, env: { ...process.env, TMPDIR: profile } },
  );
  const deadline = Date.now() + timeoutMs;
  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const endpoint = await _endpointOf(child, deadline);
    const page = await _connect(endpoint, deadline, kill);
    await page.send("Network.enable");
    await page.send("Page.enable");
    await page.send("Network.emulateNetworkConditions", { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.navigate(url);
    return page;
  } catch (error) {
    kill();
    throw error;
  }
}

function _endpointOf(child: ChildProcess, deadline: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`chromium printed no DevTools endpoint in time:\n${text}`)), Math.max(0, deadline - Date.now()));
    child.stderr!.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.on("exit", (code) => reject(new Error(`chromium exited (${code}) before listening:\n${text}`)));
  });
}

async function _connect(endpoint: string, deadline: number, kill: () => void): Promise<ChromiumPage & { navigate(url: string): Promise<void> }> {
  const socket = new WebSocket(endpoint);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`cannot connect to ${endpoint}`));
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();
  const listeners: ((message: any) => void)[] = [];
  const requests: string[] = [];
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    if (message.id !== undefined) {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(`${message.error.message} (${message.error.code})`));
      else waiter?.resolve(message.result);
      return;
    }
    if (message.method === "Network.requestWillBeSent") requests.push(message.params.request.url);
    for (const listener of listeners) listener(message);
  };
  let sessionId: string | undefined;
  const raw = (method: string, params: Record<string, unknown> = {}, session?: string): Promise<any> => {
    const id = ++nextId;
    socket.send(JSON.stringify({ id, method, params, ...(session ? { sessionId: session } : {}) }));
    return _bounded(new Promise((resolve, reject) => pending.set(id, { resolve, reject })), deadline + 30_000, method);
  };
  const { targetId } = await raw("Target.createTarget", { url: "about:blank" });
  sessionId = (await raw("Target.attachToTarget", { targetId, flatten: true })).sessionId as string;
  const send = (method: string, params: Record<string, unknown> = {}) => raw(method, params, sessionId);
  return {
    requests,
    send,
    async evaluate<T>(expression: string): Promise<T> {
      const result = await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
      if (result.exceptionDetails) throw new Error(`page threw: ${result.exceptionDetails.text} ${result.exceptionDetails.exception?.description ?? ""}`);
      return result.result.value as T;
    },
    async navigate(url: string) {
      const loaded = new Promise<void>((resolve) => listeners.push((message) => message.method === "Page.loadEventFired" && resolve()));
      await send("Page.navigate", { url });
      await _bounded(loaded, deadline, "page load");
    },
    async close() {
      try {
        socket.close();
      } finally {
        kill();
      }
    },
  };
}

function _bounded<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`chromium: ${what} took too long`)), Math.max(1, deadline - Date.now()));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
