/**
 * Arrows that stay one way. Every import in lib/, cmd/, plugins/ and skills/ (static, type-only,
 * dynamic and type-position `import("…")`, read by test/unit/import-scan.ts and resolved as the
 * bundler resolves it by test/unit/architecture.ts) is an edge; the graph must have no cycle, and
 * no edge may point from a layer to a layer above it. The layers are docs/architecture.md's table,
 * lowest first, read from the doc: a module belongs to the layer whose folder holds it most
 * specifically. There are no exceptions; an edge that needs one means a type or function is in
 * the wrong place. Module sizes and the doc's other rules (one writer, stores word nothing,
 * paths.ts alone lays out the state folder) are held here too.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { buildGraph, findCycles, layerOf, namedModules, readLayerTable, resolveSpecifier, ruleBreaches, upwardEdges, type SourceTree } from "./architecture.ts";
import { scanImports } from "./import-scan.ts";

const ROOT = resolve(import.meta.dir, "../..");
const SCANNED = ["lib", "cmd", "plugins", "skills"];
const LAYERS = readLayerTable(readFileSync(join(ROOT, "docs", "architecture.md"), "utf8"));

function _files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? _files(path) : [path];
  });
}

function _repoTree(): SourceTree {
  const files = SCANNED.flatMap((dir) => _files(join(ROOT, dir))).map((file) => relative(ROOT, file).split(sep).join("/"));
  const modules = new Map(files.filter((file) => file.endsWith(".ts")).map((file) => [file, readFileSync(join(ROOT, file), "utf8")]));
  // Files at the top (package.json) are assets the sources may import too.
  const top = readdirSync(ROOT).filter((name) => statSync(join(ROOT, name)).isFile());
  return { modules, assets: new Set([...files.filter((file) => !file.endsWith(".ts")), ...top]) };
}

/** A made-up tree for the checker's own tests. */
function _tree(modules: Record<string, string>, assets: string[] = []): SourceTree {
  return { modules: new Map(Object.entries(modules)), assets: new Set(assets) };
}

const FIXTURE_LAYERS = [
  { name: "platform", paths: ["lib/platform/"] },
  { name: "store", paths: ["lib/store/"] },
  { name: "agent", paths: ["lib/agent/"] },
  { name: "ui", paths: ["lib/ui/"] },
];

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
    expect([layerOf(FIXTURE_LAYERS, "lib/store/runs.ts"), layerOf(FIXTURE_LAYERS, "lib/ui/x/y.ts"), layerOf(FIXTURE_LAYERS, "cmd/shiro.ts")]).toEqual([
      1, 3, -1,
    ]);
  });
});

describe("the checker, on made-up trees", () => {
  test("specifiers resolve as the bundler resolves them; one that names nothing is reported", () => {
    const tree = _tree({ "lib/agent/loop.ts": "", "lib/agent/dir/index.ts": "", "lib/store/a.ts": "" }, ["lib/store/a.md"]);
    const from = "lib/store/a.ts";
    expect(
      ["../agent/loop.ts", "../agent/loop", "../agent/loop.js", "../agent/dir", "./a.md", "../agent/nope", "../agent/nope.js"].map((specifier) =>
        resolveSpecifier(tree, from, specifier),
      ),
    ).toEqual(["lib/agent/loop.ts", "lib/agent/loop.ts", "lib/agent/loop.ts", "lib/agent/dir/index.ts", "lib/store/a.md", undefined, undefined]);
    const graph = buildGraph(
      _tree({ "lib/store/a.ts": 'import { x } from "../agent/gone";\nimport y from "./a.md" with { type: "text" };' }, ["lib/store/a.md"]),
    );
    expect([graph.unresolved, graph.edges.get("lib/store/a.ts")]).toEqual([["lib/store/a.ts: ../agent/gone"], []]);
  });

  test("an extensionless upward import is an upward edge, and named as unspelled", () => {
    const graph = buildGraph(_tree({ "lib/store/runs.ts": 'import { runTurn } from "../agent/loop";', "lib/agent/loop.ts": "export const runTurn = 1;" }));
    expect(upwardEdges(FIXTURE_LAYERS, graph.edges)).toEqual(["lib/store/runs.ts (store) -> lib/agent/loop.ts (agent)"]);
    expect(graph.unspelled).toEqual(["lib/store/runs.ts: ../agent/loop"]);
  });

  test("a cycle written with .js specifiers is a cycle", () => {
    const graph = buildGraph(
      _tree({ "lib/agent/a.ts": 'import type { B } from "./b.js";', "lib/agent/b.ts": 'export type B = 1;\nconst a = await import("./a.js");' }),
    );
    expect(findCycles(graph.edges)).toEqual([["lib/agent/a.ts", "lib/agent/b.ts"]]);
  });

  test("a stray process.stderr.write in a store, a second writer, and a second layout are breaches", () => {
    const tree = _tree({
      "lib/store/runs.ts": 'export function save() { process.stderr.write("saved\\n"); }',
      "lib/store/notes.ts": 'import { consola } from "consola";',
      "lib/agent/agent.ts": 'console.log("hi"); const home = process.env.SHIRO_HOME; const dir = join(home, ".shiro-neko");',
      "lib/ui/output.ts": 'process.stdout.write("ok");',
      "lib/platform/paths.ts": 'const dir = join(env.SHIRO_HOME, ".shiro-neko");',
      "lib/ui/help.ts": '// process.stderr.write("a comment")\nconst text = `set SHIRO_HOME to move .shiro-neko/`;',
    });
    expect(ruleBreaches(tree, FIXTURE_LAYERS).sort()).toEqual(
      [
        "store: lib/store/runs.ts writes to the terminal (process.stderr.write); a store words nothing",
        "store: lib/store/notes.ts imports consola; a store words nothing",
        "writer: lib/agent/agent.ts writes console.log; output goes through lib/ui/output.ts",
        "layout: lib/agent/agent.ts reads SHIRO_HOME; lib/platform/paths.ts alone lays out the state folder",
        'layout: lib/agent/agent.ts spells the state folder (".shiro-neko"); lib/platform/paths.ts alone lays it out',
      ].sort(),
    );
  });

  test("the doc's table parses, and naming a module by file is caught", () => {
    const doc =
      "## Layers\n\n| # | layer | folders | what |\n|---|---|---|---|\n| 1 | platform | `lib/platform/`, `lib/events.ts` | x |\n| 2 | store | `lib/store/`, `lib/store/special.ts` (one) | y |\n\n## Seams\n";
    const layers = readLayerTable(doc);
    expect(layers).toEqual([
      { name: "platform", paths: ["lib/platform/", "lib/events.ts"] },
      { name: "store", paths: ["lib/store/", "lib/store/special.ts"] },
    ]);
    expect(namedModules(layers)).toEqual(["lib/store/special.ts"]);
  });
});

describe("layers", () => {
  const tree = _repoTree();
  const graph = buildGraph(tree);

  test("the doc's table is read, and places modules by folder only", () => {
    expect(LAYERS.map((layer) => layer.name)).toEqual([
      "platform",
      "seams",
      "foundation",
      "store",
      "policy",
      "find",
      "tools",
      "extension API",
      "plugins",
      "extensions",
      "agent",
      "ui",
      "cmd",
    ]);
    expect(namedModules(LAYERS)).toEqual([]);
  });

  test("the graph holds the imports (sanity: known edges of each kind are there)", () => {
    expect(graph.edges.get("cmd/shiro.ts")).toContain("cmd/_flags.ts");
    expect(graph.edges.get("cmd/_start.ts")).toContain("cmd/_headless.ts");
    expect(graph.edges.get("plugins/guard.ts")?.some((target) => target.endsWith("plugin-api.ts"))).toBe(true);
    expect([...graph.edges.values()].some((targets) => targets.includes("skills/index.ts"))).toBe(true);
  });

  test("every relative specifier resolves, and names the file with .ts", () => {
    expect([graph.unresolved, graph.unspelled]).toEqual([[], []]);
  });

  test("every module belongs to a layer", () => {
    expect([...graph.edges.keys()].filter((path) => layerOf(LAYERS, path) < 0)).toEqual([]);
  });

  test("no import cycle, type-only and dynamic imports included", () => {
    expect(findCycles(graph.edges)).toEqual([]);
  });

  test("no module over 400 lines, no file in cmd/ over 150", () => {
    const over: string[] = [];
    for (const [path, text] of tree.modules) {
      const lines = text.split("\n").length - 1;
      const limit = path.startsWith("cmd/") ? 150 : 400;
      if (lines > limit) over.push(`${path}: ${lines} lines (limit ${limit})`);
    }
    expect(over).toEqual([]);
  });

  test("no import points up the layers", () => {
    expect(upwardEdges(LAYERS, graph.edges)).toEqual([]);
  });

  test("one writer, stores that word nothing, one layout of the state folder", () => {
    expect(ruleBreaches(tree, LAYERS)).toEqual([]);
  });
});
