import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import * as v from "valibot";
import { htmlToMarkdown } from "../../lib/tools/html-to-markdown.ts";
import { isRefusedAddress, type LookupFn } from "../../lib/tools/net-guard.ts";
import type { ToolContext } from "../../lib/tools/types.ts";
import { createWebFetchTool, type WebFetchOptions } from "../../lib/tools/web.ts";
import { errorOf } from "./tools-workspace.ts";

const PAGE = `<!doctype html><html><head><title>Doc</title><script>alert("x")</script></head><body>
<nav><a href="/">Home</a></nav><h1>Guide</h1><p>Read <a href="/next">the next page</a>.</p>
<ul><li>one</li><li>two</li></ul><pre><code>let a = 1;</code></pre></body></html>`;

interface TestServer {
  server: http.Server;
  port: number;
  connections: number;
  sockets: Set<Socket>;
  requests: { url: string; host: string }[];
}

let main: TestServer;
let other: TestServer;

async function startServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  const state: TestServer = { server, port: 0, connections: 0, sockets: new Set(), requests: [] };
  server.on("connection", (socket: Socket) => {
    state.connections += 1;
    state.sockets.add(socket);
    socket.on("close", () => state.sockets.delete(socket));
  });
  server.on("request", (req) => state.requests.push({ url: req.url ?? "", host: req.headers.host ?? "" }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  state.port = (server.address() as AddressInfo).port;
  return state;
}

async function stopServer(state: TestServer): Promise<void> {
  for (const socket of state.sockets) socket.destroy();
  await new Promise<void>((resolve) => state.server.close(() => resolve()));
}

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://x");
  const send = (status: number, type: string, body: string | Uint8Array, extra: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": type, ...extra });
    res.end(body);
  };
  const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
  if (hop) {
    const n = Number(hop[1]);
    if (n === 0) return send(200, "text/plain", "landed");
    res.writeHead(302, { location: `/hop/${n - 1}` });
    return void res.end();
  }
  switch (url.pathname) {
    case "/page":
      return send(200, "text/html; charset=utf-8", PAGE);
    case "/plain":
      return send(200, "text/plain", "  plain text  \n");
    case "/json":
      return send(200, "application/problem+json", '{"ok":true}');
    case "/latin1":
      return send(200, "text/plain; charset=iso-8859-1", new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    case "/long":
      return send(200, "text/plain", "x".repeat(40_000));
    case "/huge":
      return send(200, "text/plain", "y".repeat(600 * 1024));
    case "/image":
      return send(200, "image/png", new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    case "/gzip":
      return send(200, "text/html", gzipSync("<p>zipped <b>bold</b></p>"), { "content-encoding": "gzip" });
    case "/missing":
      return send(404, "text/plain", "nope");
    case "/empty":
      return send(200, "text/plain", "");
    case "/hang":
      return; // never answers; the test's deadline ends it
    case "/to-other":
      return void res.writeHead(302, { location: `http://127.0.0.1:${other.port}/secret` }).end();
    case "/to-private":
      return void res.writeHead(301, { location: "http://10.0.0.1/admin" }).end();
    case "/to-localhost":
      return void res.writeHead(307, { location: "https://localhost/" }).end();
    case "/to-ftp":
      return void res.writeHead(302, { location: "ftp://example.com/file" }).end();
    default:
      return send(500, "text/plain", "unknown route");
  }
}

beforeAll(async () => {
  main = await startServer(route);
  other = await startServer((_req, res) => res.end("should never be reached"));
});

afterAll(async () => {
  await stopServer(main);
  await stopServer(other);
});

function makeContext(signal = new AbortController().signal): ToolContext {
  return { root: "/", signal, emitOutput: () => {}, callId: "call-1" };
}

function fetchWith(options: WebFetchOptions, input: { url: string; maxChars?: number }, signal?: AbortSignal): Promise<string> {
  const tool = createWebFetchTool(options);
  return tool.execute(v.parse(tool.schema, input), makeContext(signal));
}

/** Allowed through to the local test server, as config `webFetch.allowHosts` would. */
function fetchLocal(path: string, maxChars?: number): Promise<string> {
  return fetchWith({ allowHosts: [`127.0.0.1:${main.port}`] }, { url: `http://127.0.0.1:${main.port}${path}`, maxChars });
}

const noDns: LookupFn = async (hostname) => {
  throw new Error(`unexpected DNS lookup of ${hostname}`);
};

describe("web_fetch through allowHosts", () => {
  test("declares its set, subjects and read-only flag", () => {
    const tool = createWebFetchTool({});
    expect({ name: tool.name, set: tool.set, effect: tool.effect, decision: tool.decision }).toEqual({
      name: "web_fetch",
      set: "net",
      effect: "net",
      decision: "ask",
    });
    expect(tool.subjects?.({ url: "https://example.com/" })).toEqual(["https://example.com/"]);
  });

  test("HTML becomes Markdown under a URL line", async () => {
    const base = `http://127.0.0.1:${main.port}`;
    expect(await fetchLocal("/page")).toBe(`${base}/page\n\n# Guide\n\nRead [the next page](${base}/next).\n\n- one\n- two\n\n\`\`\`\nlet a = 1;\n\`\`\``);
  });

  test("other text is trimmed; charsets and gzip are decoded", async () => {
    const base = `http://127.0.0.1:${main.port}`;
    expect(await fetchLocal("/plain")).toBe(`${base}/plain\n\nplain text`);
    expect(await fetchLocal("/json")).toBe(`${base}/json\n\n{"ok":true}`);
    expect(await fetchLocal("/latin1")).toBe(`${base}/latin1\n\ncafé`);
    expect(await fetchLocal("/gzip")).toBe(`${base}/gzip\n\nzipped **bold**`);
    expect(await fetchLocal("/empty")).toBe(`${base}/empty\n\n(empty response body)`);
  });

  test("the body is cut at maxChars with a note", async () => {
    const base = `http://127.0.0.1:${main.port}`;
    expect(await fetchLocal("/long", 1000)).toBe(`${base}/long\n\n${"x".repeat(1000)}\n\n[truncated 39000 chars]`);
    expect(await fetchLocal("/long")).toBe(`${base}/long\n\n${"x".repeat(30_000)}\n\n[truncated 10000 chars]`);
  });

  test("the body read stops at 512 KiB", async () => {
    const base = `http://127.0.0.1:${main.port}`;
    expect(await fetchLocal("/huge")).toBe(
      `${base}/huge\n\n${"y".repeat(30_000)}\n\n[truncated ${524_288 - 30_000} chars]\n[response body capped at 524288 bytes]`,
    );
  });

  test("non-text types and error statuses are refused", async () => {
    const base = `http://127.0.0.1:${main.port}`;
    expect(await errorOf(fetchLocal("/image"))).toBe(`${base}/image is image/png, not text. web_fetch returns text only.`);
    expect(await errorOf(fetchLocal("/missing"))).toBe(`${base}/missing returned 404 Not Found`);
  });

  test("redirects are followed up to five, and the result names both ends", async () => {
    const base = `http://127.0.0.1:${main.port}`;
    expect(await fetchLocal("/hop/5")).toBe(`${base}/hop/5 -> ${base}/hop/0\n\nlanded`);
    expect(await errorOf(fetchLocal("/hop/6"))).toBe("more than 5 redirects");
  });

  test("a bare host entry allows every port of that host", async () => {
    const url = `http://127.0.0.1:${main.port}/plain`;
    expect(await fetchWith({ allowHosts: ["127.0.0.1"] }, { url })).toBe(`${url}\n\nplain text`);
  });

  test("connects to the vetted address without resolving the name again", async () => {
    let lookups = 0;
    // A rebinding resolver: the first answer is the allowed one, any later answer would be private.
    const rebinding: LookupFn = async () => (lookups++ === 0 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "10.9.9.9", family: 4 }]);
    const url = `http://pinned.test:${main.port}/plain`;
    const before = main.requests.length;
    expect(await fetchWith({ allowHosts: [`pinned.test:${main.port}`], lookup: rebinding }, { url })).toBe(`${url}\n\nplain text`);
    expect(lookups).toBe(1);
    expect(main.requests.slice(before)).toEqual([{ url: "/plain", host: `pinned.test:${main.port}` }]);
  });

  test("the deadline and an interrupt end a fetch that hangs", async () => {
    const url = `http://127.0.0.1:${main.port}/hang`;
    const allowHosts = [`127.0.0.1:${main.port}`];
    expect(await errorOf(fetchWith({ allowHosts, timeoutMs: 300 }, { url }))).toBe(`timed out after 0.3 s fetching ${url}`);
    const controller = new AbortController();
    const pending = fetchWith({ allowHosts }, { url }, controller.signal);
    setTimeout(() => controller.abort(), 100);
    expect(await errorOf(pending)).toBe("web_fetch was interrupted.");
  });
});

describe("web_fetch refusals", () => {
  test("loopback, localhost and private hosts without allowHosts", async () => {
    const refuse = (url: string) => errorOf(fetchWith({ lookup: noDns }, { url }));
    const before = main.connections;
    expect(await refuse(`http://127.0.0.1:${main.port}/plain`)).toBe("refusing a private or loopback host: 127.0.0.1");
    expect(await refuse("http://localhost/")).toBe("refusing a private or loopback host: localhost");
    expect(await refuse("https://api.localhost./")).toBe("refusing a private or loopback host: api.localhost.");
    expect(await refuse("https://[::1]/")).toBe("refusing a private or loopback host: [::1]");
    expect(await refuse("https://[::ffff:127.0.0.1]/")).toBe("refusing a private or loopback host: [::ffff:7f00:1]");
    expect(await refuse("https://2130706433/")).toBe("refusing a private or loopback host: 127.0.0.1");
    expect(await refuse("https://192.168.1.10/")).toBe("refusing a private or loopback host: 192.168.1.10");
    expect(main.connections).toBe(before);
  });

  test("a public-looking name that resolves to a private address", async () => {
    const lookup: LookupFn = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ];
    expect(await errorOf(fetchWith({ lookup }, { url: "https://sneaky.example/" }))).toBe("refusing a private or loopback host: sneaky.example");
  });

  test("plain http to a public host, other schemes and bad URLs", async () => {
    const lookup: LookupFn = async () => [{ address: "93.184.216.34", family: 4 }];
    expect(await errorOf(fetchWith({ lookup }, { url: "http://example.com/" }))).toBe("refusing plain http for example.com — use https");
    expect(await errorOf(fetchWith({ lookup }, { url: "ftp://example.com/" }))).toBe("refusing ftp: — only http and https are fetched");
    expect(await errorOf(fetchWith({ lookup }, { url: "not a url" }))).toBe("not a URL: not a url");
    const failing: LookupFn = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await errorOf(fetchWith({ lookup: failing }, { url: "https://nowhere.example/" }))).toBe("could not resolve nowhere.example: ENOTFOUND");
  });

  test("a redirect to a loopback port that is not allowed never connects", async () => {
    const before = other.connections;
    expect(await errorOf(fetchLocal("/to-other"))).toBe("redirect to a refused URL: refusing a private or loopback host: 127.0.0.1");
    expect(other.connections).toBe(before);
    expect(before).toBe(0);
  });

  test("redirects to private addresses, localhost and other schemes are refused", async () => {
    expect(await errorOf(fetchLocal("/to-private"))).toBe("redirect to a refused URL: refusing a private or loopback host: 10.0.0.1");
    expect(await errorOf(fetchLocal("/to-localhost"))).toBe("redirect to a refused URL: refusing a private or loopback host: localhost");
    expect(await errorOf(fetchLocal("/to-ftp"))).toBe("redirect to a refused URL: refusing ftp: — only http and https are fetched");
  });

  test("maxChars is 500 to 30000", () => {
    const schema = createWebFetchTool({}).schema;
    const issue = (input: unknown) => v.safeParse(schema, input).issues?.[0]?.message;
    expect([issue({ url: "u", maxChars: 499 }), issue({ url: "u", maxChars: 30_001 }), issue({ url: "u", maxChars: 500 })]).toEqual([
      "maxChars must be at least 500",
      "maxChars must be at most 30000",
      undefined,
    ]);
  });
});

describe("address classification", () => {
  test("refused and public addresses", () => {
    const refused = [
      "0.0.0.0",
      "10.1.2.3",
      "100.64.0.1",
      "100.127.255.255",
      "127.0.0.1",
      "127.255.0.9",
      "169.254.169.254",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      "::127.0.0.1",
      "fe80::1",
      "febf::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "64:ff9b::192.168.0.1",
      "fe80::1%eth0",
    ];
    const allowed = [
      "8.8.8.8",
      "100.63.255.255",
      "100.128.0.1",
      "172.15.255.255",
      "172.32.0.1",
      "192.169.0.1",
      "169.253.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "64:ff9b::8.8.8.8",
      "2001:db8::1",
    ];
    expect(refused.filter((address) => !isRefusedAddress(address))).toEqual([]);
    expect(allowed.filter((address) => isRefusedAddress(address))).toEqual([]);
  });
});

describe("htmlToMarkdown", () => {
  test("drops chrome and renders structure", () => {
    const html = `<style>p{}</style><nav>menu</nav><h2>Title &amp; <em>more</em></h2>
      <p>One<br>two <strong> strong </strong>and <code>a &lt; b</code>
      <p>Next with <a href="#top">anchor</a> and <a href="javascript:x()">script</a>
      <ol start="3"><li>c<li>d<ul><li>inner</ul></ol>
      <blockquote><p>quoted</p></blockquote>
      <table><tr><th>k</th><th>v</th></tr><tr><td>a|b</td><td>1</td></tr></table>
      <div hidden>secret</div><div aria-hidden="true">also secret</div><hr>
      <pre class="language-sh">echo \`x\`\n\n  indented</pre>`;
    expect(htmlToMarkdown(html, "https://example.com/docs/")).toBe(
      [
        "## Title & *more*",
        "One\ntwo **strong** and `a < b`",
        "Next with anchor and script",
        "3. c\n4. d\n   - inner",
        "> quoted",
        "| k | v |\n| --- | --- |\n| a\\|b | 1 |",
        "---",
        "```sh\necho `x`\n\n  indented\n```",
      ].join("\n\n"),
    );
  });

  test("resolves links and images against the page URL and decodes entities", () => {
    expect(htmlToMarkdown(`<p><a href="../a?x=1&amp;y=2">A &#x2192; B&#33;</a> <img alt="logo" src="/l.png"></p>`, "https://example.com/docs/page")).toBe(
      "[A → B!](https://example.com/a?x=1&y=2) ![logo](https://example.com/l.png)",
    );
  });

  test("a page nested 100,000 levels deep still converts instead of overflowing the stack", () => {
    expect(htmlToMarkdown(`${"<div>".repeat(100_000)}<p>deep <b>text</b></p>`)).toBe("deep text");
  });

  test("an unclosed tag ends at the next <, so the rest of the page still parses", () => {
    expect(htmlToMarkdown(`<p>a <b "unclosed</p>${"<i ".repeat(1000)}<p>after <b>bold</b></p>`)).toContain("after **bold**");
  });

  test("script text that contains markup does not leak", () => {
    expect(htmlToMarkdown(`<script>if (a < b) { s = "</p><h1>x</h1>" }</script><p>kept</p>`)).toBe("kept");
  });
});
