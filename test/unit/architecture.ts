/**
 * The architecture checker behind test/unit/layers.test.ts, over a source tree given as data
 * (repo-relative path → text) so its tests can feed it small made-up trees:
 * - the layers are read from docs/architecture.md's table, the one place they are written;
 * - every relative specifier is resolved the way the bundler resolves it (`./x.ts`, `./x`,
 *   `./x.js` → `x.ts`, `./dir` → `dir/index.ts`); one that resolves to nothing is reported, and
 *   one without the `.ts` extension Deno needs is reported too;
 * - the graph's cycles, upward edges and modules placed outside the table;
 * - the doc's other rules: one writer of stdout and stderr (lib/ui/output.ts), stores that word
 *   nothing, and lib/platform/paths.ts alone laying out the state folder.
 */
import { dirname, posix } from "node:path";
import { scanImports, tokenize, type Token } from "./import-scan.ts";

export interface Layer {
  name: string;
  /** Folders (ending in `/`) or files directly in lib/. */
  paths: string[];
}

/** A source tree: repo-relative POSIX path → text; `assets` are other files imports may name. */
export interface SourceTree {
  modules: ReadonlyMap<string, string>;
  assets: ReadonlySet<string>;
}

export interface Graph {
  edges: Map<string, string[]>;
  /** `from: specifier` for every relative specifier that names no file. */
  unresolved: string[];
  /** `from: specifier` for every relative import of a module not spelled with `.ts`. */
  unspelled: string[];
}

/** The layer table under `## Layers`: the backticked paths of each row's third cell, lowest first. */
export function readLayerTable(markdown: string): Layer[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Layers\n")) ?? "";
  const layers: Layer[] = [];
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 5 || !/^\d+$/.test(cells[1]!)) continue;
    layers.push({ name: cells[2]!, paths: [...cells[3]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!) });
  }
  return layers;
}

/** Where the bundler finds `specifier` imported from `from`: a module or asset path, or undefined. */
export function resolveSpecifier(tree: SourceTree, from: string, specifier: string): string | undefined {
  const base = posix.normalize(posix.join(dirname(from), specifier));
  const has = (path: string) => tree.modules.has(path) || tree.assets.has(path);
  const candidates = specifier.endsWith(".js")
    ? [`${base.slice(0, -3)}.ts`, `${base.slice(0, -3)}.tsx`, base]
    : [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`];
  return candidates.find(has);
}

/** Every module's edges to the modules it imports (assets and packages are not edges). */
export function buildGraph(tree: SourceTree): Graph {
  const edges = new Map<string, string[]>();
  const unresolved: string[] = [];
  const unspelled: string[] = [];
  for (const [file, text] of tree.modules) {
    const targets: string[] = [];
    for (const found of scanImports(text)) {
      if (!found.specifier.startsWith(".")) continue;
      const target = resolveSpecifier(tree, file, found.specifier);
      if (target === undefined) unresolved.push(`${file}: ${found.specifier}`);
      else if (tree.modules.has(target)) {
        targets.push(target);
        if (!found.specifier.endsWith(".ts")) unspelled.push(`${file}: ${found.specifier}`);
      }
    }
    edges.set(file, [...new Set(targets)]);
  }
  return { edges, unresolved, unspelled };
}

/** The index of the layer whose path matches `path` most specifically, or -1. */
export function layerOf(layers: readonly Layer[], path: string): number {
  let best = -1;
  let length = -1;
  layers.forEach((layer, index) => {
    for (const prefix of layer.paths) {
      if ((path === prefix || (prefix.endsWith("/") && path.startsWith(prefix))) && prefix.length > length) {
        best = index;
        length = prefix.length;
      }
    }
  });
  return best;
}

/** Table paths that name a module by file (anything but a folder or a file directly in lib/). */
export function namedModules(layers: readonly Layer[]): string[] {
  return layers.flatMap((layer) => layer.paths.filter((path) => !path.endsWith("/") && !/^lib\/[^/]+\.ts$/.test(path)));
}

export function upwardEdges(layers: readonly Layer[], edges: ReadonlyMap<string, string[]>): string[] {
  const upward: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) {
      if (layerOf(layers, to) > layerOf(layers, from))
        upward.push(`${from} (${layers[layerOf(layers, from)]?.name}) -> ${to} (${layers[layerOf(layers, to)]?.name})`);
    }
  }
  return upward;
}

/** Every cycle's modules (strongly connected components of more than one module, or a self-import). */
export function findCycles(graph: ReadonlyMap<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== node);
    if (members.length > 1 || graph.get(node)!.includes(node)) cycles.push(members.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** The one module that writes stdout and stderr, and the one that lays out the state folder. */
export const THE_WRITER = "lib/ui/output.ts";
/**
 * Under `shiro acp` stdout is the protocol's channel: its transport owns it and sends every
 * other stdout write to stderr (docs/architecture.md names it). No other module may touch either stream.
 */
const _PROTOCOL_CHANNEL = "lib/ui/acp/server.ts";
export const THE_LAYOUT = "lib/platform/paths.ts";
const _STORE_LAYER = "store";
const _WORDING_PACKAGES = new Set(["consola", "@clack/prompts"]);

/**
 * The doc's rules beyond the layers, one line per breach:
 * - `writer`: `process.stdout.write`, `process.stderr.write` or `console.*` outside THE_WRITER;
 * - `store`: a module of the store layer that writes to the terminal or imports a wording package;
 * - `layout`: outside THE_LAYOUT, a string that spells the state folder (`.shiro-neko`) or code
 *   that reads `SHIRO_HOME`.
 * Template-literal text and comments are prose, not code, and are not read.
 */
export function ruleBreaches(tree: SourceTree, layers: readonly Layer[]): string[] {
  const breaches: string[] = [];
  const store = layers.findIndex((layer) => layer.name === _STORE_LAYER);
  for (const [file, text] of tree.modules) {
    const tokens = tokenize(text);
    const inStore = store >= 0 && layerOf(layers, file) === store;
    for (let t = 0; t < tokens.length; t++) {
      const written = _terminalWrite(tokens, t);
      if (written && inStore) breaches.push(`store: ${file} writes to the terminal (${written}); a store words nothing`);
      else if (written && file !== THE_WRITER && file !== _PROTOCOL_CHANNEL)
        breaches.push(`writer: ${file} writes ${written}; output goes through ${THE_WRITER}`);
      const token = tokens[t]!;
      if (file !== THE_LAYOUT && token.kind === "string" && /(^|\/)\.shiro-neko(\/|$)/.test(token.text))
        breaches.push(`layout: ${file} spells the state folder ("${token.text}"); ${THE_LAYOUT} alone lays it out`);
      if (file !== THE_LAYOUT && token.text === "SHIRO_HOME" && _isEnvRead(tokens, t))
        breaches.push(`layout: ${file} reads SHIRO_HOME; ${THE_LAYOUT} alone lays out the state folder`);
    }
    if (inStore)
      for (const found of scanImports(text))
        if (_WORDING_PACKAGES.has(found.specifier)) breaches.push(`store: ${file} imports ${found.specifier}; a store words nothing`);
  }
  return breaches;
}

function _terminalWrite(tokens: readonly Token[], t: number): string | undefined {
  const word = (k: number) => tokens[t + k]?.text;
  if (word(0) === "process" && word(1) === "." && (word(2) === "stdout" || word(2) === "stderr") && word(3) === "." && word(4) === "write")
    return `process.${word(2)}.write`;
  if (word(0) === "console" && word(1) === "." && tokens[t - 1]?.text !== ".") return `console.${word(2)}`;
  return undefined;
}

/** `env.SHIRO_HOME` or `env["SHIRO_HOME"]`. */
function _isEnvRead(tokens: readonly Token[], t: number): boolean {
  const before = tokens[t - 1]?.text;
  const token = tokens[t]!;
  if (token.kind === "word") return before === "." && tokens[t - 2]?.text === "env";
  return before === "[" && tokens[t - 2]?.text === "env";
}
