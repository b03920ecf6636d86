/**
 * Decides whether web_fetch may connect to a URL, and to which addresses.
 *
 * A host is refused when it is `localhost` / `*.localhost`, or when ANY address it resolves to
 * is loopback, private (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10), CGNAT
 * (100.64/10), unique-local (fc00::/7), unspecified, multicast or reserved — IPv4-mapped and
 * IPv4-compatible IPv6 forms included. Public hosts must use https. An `allowHosts` entry (exact
 * host, or host:port) lets a host through both rules. The caller connects only to the addresses
 * returned here, so a second DNS answer (rebinding) can never reach a refused address.
 */
import { createRequire } from "node:module";

let _net: typeof import("node:net") | undefined;

/** node:net's isIP, required on the first check: loading node:net (Node's stream machinery) costs a start-up several ms. */
function _isIP(input: string): number {
  _net ??= createRequire(import.meta.url)("node:net") as typeof import("node:net");
  return _net.isIP(input);
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses. Injectable so tests can stand in for DNS. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export const lookupAll: LookupFn = async (hostname) => {
  const { lookup } = await import("node:dns/promises");
  const answers = await lookup(hostname, { all: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

export interface GuardOptions {
  allowHosts: string[];
  lookup: LookupFn;
}

/** A URL cleared for connecting, with the only addresses the connection may use. */
export interface CheckedTarget {
  url: URL;
  addresses: ResolvedAddress[];
  /** True when an allowHosts entry let it through. */
  allowed: boolean;
}

/** Parses a URL the model gave; throws `not a URL: <raw>`. */
export function parseUrl(raw: string): URL {
  try {
    return new URL(raw.trim());
  } catch {
    throw new Error(`not a URL: ${raw}`);
  }
}

/**
 * Checks scheme, host and every resolved address. Throws one of `refusing <proto> — only http
 * and https are fetched`, `refusing a private or loopback host: <host>`, `refusing plain http
 * for <host> — use https`, `could not resolve <host>: <reason>`.
 */
export async function checkUrl(url: URL, options: GuardOptions): Promise<CheckedTarget> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`refusing ${url.protocol} — only http and https are fetched`);
  }
  const host = _bareHost(url.hostname);
  const allowed = isAllowedHost(url, options.allowHosts);
  if (!allowed && isLocalHostname(host)) throw new Error(`refusing a private or loopback host: ${url.hostname}`);
  const addresses = await _resolve(host, url.hostname, options.lookup);
  if (!allowed) {
    if (addresses.some((entry) => isRefusedAddress(entry.address))) {
      throw new Error(`refusing a private or loopback host: ${url.hostname}`);
    }
    if (url.protocol === "http:") throw new Error(`refusing plain http for ${url.hostname} — use https`);
  }
  return { url, addresses, allowed };
}

/** True when an entry names the URL's host, or its host:port (default port when none is given). */
export function isAllowedHost(url: URL, allowHosts: string[]): boolean {
  if (allowHosts.length === 0) return false;
  const host = _bareHost(url.hostname);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const forms = new Set([host, `[${host}]`, `${host}:${port}`, `[${host}]:${port}`]);
  return allowHosts.some((entry) => forms.has(entry.trim().toLowerCase()));
}

/** `localhost` and every name under `.localhost` (RFC 6761), with or without a trailing dot. */
export function isLocalHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** True for any address web_fetch must not reach without an allowHosts entry. */
export function isRefusedAddress(address: string): boolean {
  const version = _isIP(address);
  if (version === 4) return _isRefusedIPv4(_parseIPv4(address));
  if (version === 6) return _isRefusedIPv6(_parseIPv6(address));
  return true;
}

async function _resolve(host: string, label: string, lookup: LookupFn): Promise<ResolvedAddress[]> {
  const literal = _isIP(host);
  if (literal) return [{ address: host, family: literal === 6 ? 6 : 4 }];
  let addresses: ResolvedAddress[];
  try {
    addresses = await lookup(host);
  } catch (error) {
    throw new Error(`could not resolve ${label}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (addresses.length === 0) throw new Error(`could not resolve ${label}: no addresses`);
  return addresses;
}

function _bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

function _parseIPv4(address: string): number[] {
  return address.split(".").map(Number);
}

function _isRefusedIPv4([a = 0, b = 0]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168)
  );
}

function _isRefusedIPv6(groups: number[]): boolean {
  const [g0 = 0, g1 = 0, , , , g5 = 0, g6 = 0, g7 = 0] = groups;
  const embedded = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  const zeroPrefix = groups.slice(0, 5).every((group) => group === 0);
  if (zeroPrefix && g5 === 0xffff) return _isRefusedIPv4(embedded); // ::ffff:a.b.c.d, IPv4-mapped
  if (zeroPrefix && g5 === 0) return true; // ::, ::1 and deprecated IPv4-compatible ::a.b.c.d
  if (g0 === 0x64 && g1 === 0xff9b && groups.slice(2, 6).every((group) => group === 0)) return _isRefusedIPv4(embedded); // NAT64
  return (
    (g0 & 0xfe00) === 0xfc00 || // fc00::/7 unique local
    (g0 & 0xffc0) === 0xfe80 || // fe80::/10 link-local
    (g0 & 0xffc0) === 0xfec0 || // fec0::/10 site-local (deprecated)
    (g0 & 0xff00) === 0xff00 // ff00::/8 multicast
  );
}

/** Expands a valid IPv6 address (zone id and dotted IPv4 tail allowed) into eight 16-bit groups. */
function _parseIPv6(address: string): number[] {
  let text = address.split("%")[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = _parseIPv4(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part ? part.split(":").map((group) => Number.parseInt(group, 16)) : []);
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...Array<number>(Math.max(0, 8 - front.length - back.length)).fill(0), ...back];
}
