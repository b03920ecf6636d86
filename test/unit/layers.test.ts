/**
 * Arrows that stay one way. Every import in lib/, cmd/ and plugins/ (static, type-only, dynamic
 * and type-position `import("…")`, read by test/unit/import-scan.ts) is an edge; the graph must
 * have no cycle, and no edge may point from a layer to a layer above it. The layers are data,
 * lowest first: a module belongs to the layer whose path prefix matches it most specifically.
 * There are no exceptions; an edge that needs one means a type or function is in the wrong place.
 * Module sizes are held here too: one concept per module, split along a seam past the limit.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { scanImports } from "./import-scan.ts";

const LAYERS: readonly { name: string; paths: readonly string[] }[] = [
  { name: "platform", paths: ["lib/platform/", "lib/vocabulary.ts"] },
  { name: "seams", paths: ["lib/events.ts", "lib/messages.ts", "lib/notices.ts", "lib/store/notebook.ts"] },
  {
    name: "foundation",
    paths: ["lib/config/", "lib/providers/", "lib/secrets/", "lib/shell/", "lib/release/", "lib/store/json-file.ts", "lib/store/file-lock.ts"],
  },
  { name: "store", paths: ["lib/store/", "lib/search/"] },
  { name: "policy", paths: ["lib/approval/", "lib/sandbox/", "lib/extensions/skills.ts", "lib/agent/context/state.ts", "lib/agent/context/span-summaries.ts"] },
  { name: "find", paths: ["lib/find/", "lib/export/"] },
  { name: "tools", paths: ["lib/tools/"] },
  { name: "extension-api", paths: ["lib/extensions/plugin-api.ts", "lib/extensions/mcp/"] },
  { name: "plugins", paths: ["plugins/"] },
  { name: "extensions", paths: ["lib/extensions/", "lib/approval/gate.ts"] },
  { name: "agent", paths: ["lib/agent/"] },
  { name: "ui", paths: ["lib/ui/"] },
  { name: "cmd", paths: ["cmd/"] },
];

const ROOT = resolve(import.meta.dir, "../..");
const SCANNED = ["lib", "cmd", "plugins"];

function _sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return _sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Each scanned module and the scanned modules it imports (assets and packages are not edges). */
function buildGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = SCANNED.flatMap((dir) => _sources(join(ROOT, dir)));
  const known = new Set(files.map((file) => relative(ROOT, file)));
  for (const file of files) {
    const targets = scanImports(readFileSync(file, "utf8"))
      .filter((found) => found.specifier.startsWith("."))
      .map((found) => relative(ROOT, resolve(dirname(file), found.specifier)))
      .filter((target) => known.has(target));
    graph.set(relative(ROOT, file), [...new Set(targets)]);
  }
  return graph;
}

function layerOf(path: string): number {
  let best = -1;
  let length = -1;
  LAYERS.forEach((layer, index) => {
    for (const prefix of layer.paths) {
      if ((path === prefix || (prefix.endsWith("/") && path.startsWith(prefix))) && prefix.length > length) {
        best = index;
        length = prefix.length;
      }
    }
  });
  return best;
}

/** Every cycle's modules (strongly connected components of more than one module, or a self-import). */
function findCycles(graph: Map<string, string[]>): string[][] {
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

describe("import scanner", () => {
  test("finds every kind of import and nothing inside comments, strings, templates or regexes", () => {
    const source = [
      `import a from "./a.ts";`,
      `import type { B } from './b.ts';`,
      `import {\n  c,\n  type C,\n} from "./c.ts";`,
      `export { d } from "./d.ts";`,
      `export type * from "./e.ts";`,
      `import "./f.ts";`,
      `import text from "./g.md" with { type: "text" };`,
      `const h = await import("./h.ts");`,
      `type I = import("./i.ts").I;`,
      `// import x from "./no-1.ts";`,
      `/* import("./no-2.ts") */`,
      'const s = `import x from "./no-3.ts" ${`nested ${"x"}`} from "./no-4.ts"`;',
      `const r = /from "\\.\\/no-5.ts"/g; const q = "from './no-6.ts'"; Array.from("./no-7.ts");`,
      `const j = 1 / 2; import("./j.ts");`,
    ].join("\n");
    expect(scanImports(source)).toEqual([
      { specifier: "./a.ts", kind: "static" },
      { specifier: "./b.ts", kind: "static" },
      { specifier: "./c.ts", kind: "static" },
      { specifier: "./d.ts", kind: "static" },
      { specifier: "./e.ts", kind: "static" },
      { specifier: "./f.ts", kind: "static" },
      { specifier: "./g.md", kind: "static" },
      { specifier: "./h.ts", kind: "dynamic" },
      { specifier: "./i.ts", kind: "dynamic" },
      { specifier: "./j.ts", kind: "dynamic" },
    ]);
  });

  test("cycles and upward edges are found in a small graph", () => {
    const graph = new Map([
      ["lib/a.ts", ["lib/b.ts"]],
      ["lib/b.ts", ["lib/a.ts"]],
      ["lib/c.ts", []],
    ]);
    expect(findCycles(graph)).toEqual([["lib/a.ts", "lib/b.ts"]]);
    expect([layerOf("lib/store/runs.ts"), layerOf("lib/store/json-file.ts"), layerOf("cmd/shiro.ts")]).toEqual([
      LAYERS.findIndex((layer) => layer.name === "store"),
      LAYERS.findIndex((layer) => layer.name === "foundation"),
      LAYERS.length - 1,
    ]);
  });
});

describe("layers", () => {
  const graph = buildGraph();

  test("the graph holds the imports (sanity: known edges of each kind are there)", () => {
    expect(graph.get("cmd/shiro.ts")).toContain("cmd/_flags.ts");
    expect(graph.get("cmd/_start.ts")).toContain("cmd/_headless.ts");
    expect(graph.get("plugins/guard.ts")).toContain("lib/extensions/plugin-api.ts");
  });

  test("every module belongs to a layer", () => {
    expect([...graph.keys()].filter((path) => layerOf(path) < 0)).toEqual([]);
  });

  test("no import cycle, type-only and dynamic imports included", () => {
    expect(findCycles(graph)).toEqual([]);
  });

  test("no module over 400 lines, no file in cmd/ over 150", () => {
    const over: string[] = [];
    for (const path of graph.keys()) {
      const lines = readFileSync(join(ROOT, path), "utf8").split("\n").length - 1;
      const limit = path.startsWith("cmd/") ? 150 : 400;
      if (lines > limit) over.push(`${path}: ${lines} lines (limit ${limit})`);
    }
    expect(over).toEqual([]);
  });

  test("no import points up the layers", () => {
    const upward: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) {
        if (layerOf(to) > layerOf(from)) upward.push(`${from} (${LAYERS[layerOf(from)]!.name}) -> ${to} (${LAYERS[layerOf(to)]!.name})`);
      }
    }
    expect(upward).toEqual([]);
  });
});
