/**
 * What choosing the prompt's memory costs, measured on what crossed a boundary: the episode ids
 * an episode line is abbreviated against come from the small id list beside the recall index
 * (the bytes on disk decide the abbreviation, so the index's cards were not decoded for it), an
 * out-of-date list is ignored and written again, the notes whose recorded files are checked
 * for staleness are the ones whose line fits the budget, not every note, the note ids' stamps
 * come from the stamp list beside the index while the ids are the ones it names (the list, not a
 * hash, decides the stamp the index is judged by), and a project with
 * nothing stored opens no recall index, while what a legacy episodes file or a kept index folder
 * holds is still read.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { selectMemoryForPrompt } from "../../lib/agent/memory-prompt.ts";
import { paths } from "../../lib/platform/paths.ts";
import { openEpisodes, type Episode } from "../../lib/store/episodes.ts";
import { indexedEpisodes, openMemoryIndex } from "../../lib/store/memory-index.ts";
import { createAbbreviator } from "../../lib/platform/ids.ts";
import { memoryIds, prefixMemoryAbbreviator } from "../../lib/store/memory-lookup.ts";
import { buildProvenance, staleNoteChecks } from "../../lib/store/memory-provenance.ts";
import { openMemoryShelf } from "../../lib/store/memory-scopes.ts";
import { useTempHome } from "./temp-home.ts";

const home = useTempHome("shiro-memory-prompt-cost-");
const project = () => {
  const root = join(home.dir, "repo");
  mkdirSync(root, { recursive: true });
  return root;
};

const SESSION = "01a23177-4c1e-7d2a-9f10-6b0c3e2d8a41";

function episode(id: string, sessionId: string, prompt: string, changed = "src/authRedirect.ts"): Episode {
  return {
    id,
    sessionId,
    runIds: ["r"],
    startedAt: "2026-11-28T10:00:00.000Z",
    endedAt: "2026-11-28T11:00:00.000Z",
    prompts: [prompt],
    filesRead: [],
    filesChanged: [changed],
    commands: [],
    outcome: { status: "completed", steps: 3, runs: 1 },
    answer: "",
    spans: [],
  };
}

const stampOf = (path: string) => {
  const stat = statSync(path);
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
};

describe("the episode id list", () => {
  const setup = () => {
    const root = project();
    const shelf = openMemoryShelf(root);
    const episodes = openEpisodes(root);
    episodes.record(episode("01a23300-aaaa-7000-8000-000000000001", SESSION, "fix the flaky login redirect after sign-in"));
    episodes.record(episode("01a23400-bbbb-7000-8000-000000000002", "01a23190-4c1e-7d2a-9f10-6b0c3e2d8a42", "bump the charting library", "package.json"));
    const select = () => selectMemoryForPrompt({ projectRoot: root, stores: shelf.stores(), episodes, query: "the login redirect broke again" }).text;
    return { root, shelf, episodes, select, list: join(paths.memoryIndex(root), "episode-ids.txt") };
  };

  test("is written when the episodes are indexed, stamped with the episodes file, and lists what the index holds", () => {
    const { root, shelf, episodes, select, list } = setup();
    expect(select()).toContain(`- (episode 01a23177 2026-11-28) asked "fix the flaky login redirect after sign-in"`);
    expect(readFileSync(list, "utf8")).toBe(
      [
        "shiro episode ids 2",
        stampOf(episodes.path),
        SESSION,
        "01a23190-4c1e-7d2a-9f10-6b0c3e2d8a42",
        "01a23300-aaaa-7000-8000-000000000001",
        "01a23400-bbbb-7000-8000-000000000002",
        "",
      ].join("\n"),
    );
    const opened = openMemoryIndex({ projectRoot: root, stores: shelf.stores(), episodes });
    const indexed = indexedEpisodes(opened.index).flatMap((entry) => [entry.id, entry.sessionId]);
    for (const head of ["01a23177", "01a23300", "01a2", "01a23400-bbbb", "01a23190-4c1e-7d2a-9f10-6b0c3e2d8a42", "7000", "x"])
      expect([head, opened.episodeIdsStarting(head)]).toEqual([head, [...new Set(indexed.filter((id) => id.startsWith(head)))].sort()]);
  });

  test("decides the episode line's abbreviation: an id it lists that shares the session's start lengthens it", () => {
    const { episodes, select, list } = setup();
    select();
    const text = readFileSync(list, "utf8");
    const [header, stamp, ...ids] = text.split("\n").slice(0, -1);
    writeFileSync(list, `${[header, stamp, ...[...ids, "01a23177-4c1e-7fff-8000-000000000009", "01a23177-4c1e-7fff-8000-00000000000a"].sort()].join("\n")}\n`);
    expect(stampOf(episodes.path)).toBe(stamp!);
    expect(select()).toContain(`- (episode 01a23177-4c1e-7d 2026-11-28) asked "fix the flaky login redirect after sign-in"`);
  });

  test.each([
    ["another stamp", (text: string) => text.replace(/^(shiro episode ids 2\n)[^\n]+/, "$11:2:3")],
    ["another header", (text: string) => text.replace("shiro episode ids 2", "shiro episode ids 3")],
    [
      "the first version's lines (an episode and its session per line)",
      (text: string) =>
        `${["shiro episode ids 1", text.split("\n")[1], `01a23300-aaaa-7000-8000-000000000001 ${SESSION}`, "01a23177-4c1e-7fff-8000-000000000009 01a23177-4c1e-7fff-8000-00000000000a"].join("\n")}\n`,
    ],
    ["a cut last line", (text: string) => `${text}01a23177-4c1e-7fff-8000-000000000009 01a23177-4c1e-7fff`],
    ["nothing", () => ""],
  ])("with %s is out of date: the index answers and the list is written again", (_label, spoil) => {
    const { episodes, select, list } = setup();
    select();
    const good = readFileSync(list, "utf8");
    writeFileSync(list, spoil(`${good}01a23177-4c1e-7fff-8000-000000000009 01a23177-4c1e-7fff-8000-00000000000a\n`));
    expect(select()).toContain(`- (episode 01a23177 2026-11-28) asked "fix the flaky login redirect after sign-in"`);
    expect(readFileSync(list, "utf8")).toBe(good);
    expect(good.split("\n")[1]).toBe(stampOf(episodes.path));
  });

  test("a new episode rewrites it with the new stamp on the next index sync", () => {
    const { root, shelf, episodes, select, list } = setup();
    select();
    episodes.record(episode("01a23500-cccc-7000-8000-000000000003", "01a231a0-4c1e-7d2a-9f10-6b0c3e2d8a43", "rename the queue", "src/queue.ts"));
    openMemoryIndex({ projectRoot: root, stores: shelf.stores(), episodes });
    const lines = readFileSync(list, "utf8").split("\n");
    expect([lines[1], lines.length]).toEqual([stampOf(episodes.path), 9]);
  });
});

describe("shortening by first characters", () => {
  test("a table of ids: the same answers as abbreviating over every id", () => {
    const notes = [
      "01a23177-4c1e-7d2a-9f10-6b0c3e2d8a41",
      "01a23177-4c1e-7000-8000-000000000000",
      "01a23178-0000-7000-8000-000000000000",
      "x",
      "01a2317",
      "01a23177",
    ];
    const episodes = [
      { id: "01a23177-4c1f-7000-8000-000000000001", sessionId: "01a23177-aaaa-7000-8000-000000000002" },
      { id: "ep-1", sessionId: "01a23190-4c1e-7d2a-9f10-6b0c3e2d8a42" },
      { id: "01a23190-4c1e-7d2a-9f10-6b0c3e2d8a4", sessionId: "01a23199-0000-7000-8000-000000000000" },
    ];
    const all = memoryIds(notes, episodes);
    const whole = createAbbreviator(all);
    const starting = (head: string) => episodes.flatMap((episode) => [episode.id, episode.sessionId]).filter((id) => id.startsWith(head));
    const prefixed = prefixMemoryAbbreviator(notes, starting);
    for (const id of [...all, "01a23177-4c1e-7d2a-ffff-000000000000", "01a2", "01a23177-", "zzzzzzzzzz", "01a23190-4c1e-7d2a-9f10-6b0c3e2d8a42"])
      expect([id, prefixed(id)]).toEqual([id, whole(id)]);
  });
});

describe("staleness at the prompt", () => {
  test("only notes whose line fits the budget have their files checked; the marks shown are unchanged", () => {
    const root = project();
    const shelf = openMemoryShelf(root);
    for (let i = 0; i < 40; i++) {
      writeFileSync(join(root, `file${i}.ts`), `export const v${i} = ${i};\n`);
      // The notes whose file changes next rank first (one more word of the query): the lines shown always include marked ones.
      const text = `file${i}.ts holds the constant v${i} of the payment webhook${i % 2 === 0 ? " retry" : ""}`;
      shelf.project.remember("fact", text, buildProvenance(root, `file${i}.ts`));
    }
    for (let i = 0; i < 40; i += 2) writeFileSync(join(root, `file${i}.ts`), "changed\n");
    const before = staleNoteChecks();
    const injected = selectMemoryForPrompt({ projectRoot: root, stores: shelf.stores(), query: "why does the payment webhook retry", budget: 400 });
    const notes = injected.items.filter((item) => item.kind === "note");
    expect(notes.length).toBeGreaterThan(2);
    expect(notes.length).toBeLessThan(20);
    expect(staleNoteChecks() - before).toBeLessThanOrEqual(notes.length + 1);
    const textOf = new Map(shelf.project.list().map((note) => [note.id, note.text]));
    const changed = (id: string) => Number(/^file(\d+)/.exec(textOf.get(id)!)![1]) % 2 === 0;
    expect(notes.map((item) => item.stale === true)).toEqual(notes.map((item) => changed(item.id)));
    const marked = notes.filter((item) => item.stale).length;
    expect(marked).toBeGreaterThan(0);
    expect(injected.text.match(/\(possibly stale: file\d+\.ts changed since this note\)/g)?.length).toBe(marked);
  });

  test("a line that fits only without its stale mark is skipped, and a shorter one after it still fits", () => {
    const cost = (line: string) => Math.ceil(line.length / 4) + 1;
    const short = "- (gotcha) webhook";
    // What the section costs without lines: the smallest budget that shows the short note alone, less its line.
    const other = join(home.dir, "other");
    mkdirSync(other);
    const alone = openMemoryShelf(other);
    alone.project.remember("gotcha", "webhook");
    let least = 0;
    while (selectMemoryForPrompt({ projectRoot: other, stores: alone.stores(), query: "payment webhook", budget: least }).items.length === 0) least++;
    const fixed = least - cost(short);

    const root = project();
    const shelf = openMemoryShelf(root);
    writeFileSync(join(root, "settings.ts"), "a\n");
    shelf.project.remember("fact", "settings.ts keeps the retry limit of the payment webhook", buildProvenance(root, "settings.ts"));
    writeFileSync(join(root, "settings.ts"), "b\n");
    shelf.project.remember("gotcha", "webhook");
    const markless = "- (fact) settings.ts keeps the retry limit of the payment webhook";
    const marked = `${markless}\n  (possibly stale: settings.ts changed since this note)`;
    const roomy = selectMemoryForPrompt({ projectRoot: root, stores: shelf.stores(), query: "payment webhook", budget: fixed + cost(marked) + cost(short) });
    expect(roomy.items.map((item) => [item.id === shelf.project.list().find((note) => note.kind === "fact")!.id, item.stale ?? false])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(roomy.text).toContain(marked);
    // Room for the fact without its mark (and so for the short note), not for the fact with it.
    const tight = selectMemoryForPrompt({ projectRoot: root, stores: shelf.stores(), query: "payment webhook", budget: fixed + cost(markless) });
    expect(cost(marked)).toBeGreaterThan(cost(markless));
    expect(tight.items.map((item) => [item.kind, item.stale ?? false])).toEqual([["note", false]]);
    expect(tight.text).toContain(short);
    expect(tight.text).not.toContain("retry limit");
  });
});

describe("a project with nothing stored", () => {
  const manifest = (root: string) => JSON.parse(readFileSync(join(paths.memoryIndex(root), "manifest.json"), "utf8")) as { docs: number };

  test("no note, no episodes file, no index folder: an empty index, and no folder made", () => {
    const root = project();
    const shelf = openMemoryShelf(root);
    const opened = openMemoryIndex({ projectRoot: root, stores: shelf.stores(), episodes: openEpisodes(root) });
    expect([opened.index.size, opened.index.search("login", { limit: 5 }), opened.episodeIdsStarting("01a2")]).toEqual([0, [], []]);
    expect(existsSync(paths.memoryIndex(root))).toBe(false);
  });

  test("an episodes file in the format before the log is still indexed and found", () => {
    const root = project();
    mkdirSync(join(paths.legacyProjectEpisodes(root), ".."), { recursive: true });
    const legacy = { version: 1, project: root, episodes: [episode("01a23300-aaaa-7000-8000-000000000001", SESSION, "fix the login redirect")], digests: [] };
    writeFileSync(paths.legacyProjectEpisodes(root), `${JSON.stringify(legacy)}\n`);
    const opened = openMemoryIndex({ projectRoot: root, stores: openMemoryShelf(root).stores(), episodes: openEpisodes(root) });
    expect(opened.index.search("login redirect", { limit: 5 }).map((hit) => hit.id)).toEqual(["01a23300-aaaa-7000-8000-000000000001"]);
  });

  test("an index folder kept after its notes and episodes are gone is brought up to date, not passed over", () => {
    const root = project();
    const shelf = openMemoryShelf(root);
    const episodes = openEpisodes(root);
    episodes.record(episode("01a23300-aaaa-7000-8000-000000000001", SESSION, "fix the login redirect"));
    shelf.project.remember("fact", "the login redirect uses /auth/callback");
    openMemoryIndex({ projectRoot: root, stores: shelf.stores(), episodes });
    expect(manifest(root).docs).toBe(2);
    rmSync(paths.projectEpisodes(root));
    expect(shelf.project.forget("the login redirect uses")).toBe(1);
    const opened = openMemoryIndex({ projectRoot: root, stores: shelf.stores(), episodes: openEpisodes(root) });
    expect([opened.index.size, manifest(root).docs]).toEqual([0, 0]);
  });
});

describe("the note id stamps", () => {
  const NOTES = ["01a23300-0000-7000-8000-000000000003", "01a23300-0000-7000-8000-000000000002", "01a23300-0000-7000-8000-000000000001"];
  const setup = () => {
    const root = project();
    mkdirSync(paths.memoryDir(), { recursive: true });
    // Oldest first, as a store keeps them; listed newest first.
    const entries = [...NOTES]
      .reverse()
      .map((id, at) => ({ id, kind: "fact", text: `the login redirect note ${at}`, createdAt: `2026-11-0${at + 1}T00:00:00.000Z`, hits: 0 }));
    writeFileSync(paths.projectMemory(root), JSON.stringify({ version: 1, project: root, entries }));
    const shelf = openMemoryShelf(root);
    const open = () => openMemoryIndex({ projectRoot: root, stores: shelf.stores(), episodes: openEpisodes(root) });
    const generation = () => (JSON.parse(readFileSync(join(paths.memoryIndex(root), "manifest.json"), "utf8")) as { generation: number }).generation;
    return { open, generation, list: join(paths.memoryIndex(root), "note-ids.txt") };
  };
  // The stamp the index recorded for these ids before the list existed: unchanged, so no index is resynced by an upgrade.
  const STAMP = "3:1d805760:10c7f892";
  const EMPTY = "0:811c9dc5:9747b28c";

  test("are written when the notes are indexed: each store's stamp with its ids, newest first", () => {
    const { open, list } = setup();
    expect(open().index.search("redirect", { limit: 5 }).length).toBe(3);
    expect(readFileSync(list, "utf8").split("\n")).toEqual([
      "shiro note ids 1",
      `notes:agent:default\t${EMPTY}\t[]`,
      `notes:global\t${EMPTY}\t[]`,
      `notes:project\t${STAMP}\t${JSON.stringify(NOTES)}`,
      `notes:repo\t${EMPTY}\t[]`,
      "",
    ]);
  });

  test("decide the stamp while the ids are the ones listed: a stamp the list gives for them is what the index is judged by", () => {
    const { open, generation, list } = setup();
    open();
    const before = generation();
    writeFileSync(list, `shiro note ids 1\nnotes:project\t3:0:0\t${JSON.stringify(NOTES)}\n`);
    open();
    // The segment was restamped from the list (a hash would have found it current): one more manifest.
    expect(generation()).toBe(before + 1);
    open();
    expect(generation()).toBe(before + 1);
  });

  test.each([
    ["other ids", `shiro note ids 1\nnotes:project\t9:9:9\t${JSON.stringify(NOTES.slice(1))}\n`],
    ["another header", `shiro note ids 2\nnotes:project\t9:9:9\t${JSON.stringify(NOTES)}\n`],
    ["a line of another shape", `shiro note ids 1\nnotes:project\t9:9:9\t${JSON.stringify(NOTES)}\tmore\n`],
    ["a cut last line", `shiro note ids 1\nnotes:project\t9:9:9\t${JSON.stringify(NOTES)}`],
  ])("with %s are out of date: the ids are hashed, the index left as it is, and the list written again", (_label, spoiled) => {
    const { open, generation, list } = setup();
    open();
    const [before, good] = [generation(), readFileSync(list, "utf8")];
    writeFileSync(list, spoiled);
    open();
    expect([generation(), readFileSync(list, "utf8")]).toEqual([before, good]);
  });
});

describe("the builtins a prompt's memory calls", () => {
  // Each of these is compiled at its first call in a process (about 0.03-0.3 ms apiece: Array.from
  // the most), and in a compiled binary nothing before the memory phase has called them: a prompt's
  // memory with a recall index to read used to be where a first request paid for them.
  const COLD = [
    [Array, "from"],
    [Array.prototype, "at"],
    [Array.prototype, "every"],
    [Array.prototype, "forEach"],
    [Array.prototype, "reduce"],
    [Array.prototype, "reverse"],
    [String.prototype, "match"],
    [String.prototype, "matchAll"],
  ] as const;

  test("are none of those a compiled binary calls first there, with notes, episodes and a recall index", () => {
    const root = project();
    const shelf = openMemoryShelf(root);
    for (const text of ["the login redirect goes through src/authRedirect.ts", "Priya owns the redirect tests", "run bun test before a push"])
      shelf.project.remember("fact", text);
    const episodes = openEpisodes(root);
    episodes.record(episode("01a23300-aaaa-7000-8000-000000000001", SESSION, "fix the flaky login redirect after sign-in"));
    const select = () => selectMemoryForPrompt({ projectRoot: root, stores: shelf.stores(), episodes, query: "why does the Login redirect break, v1.2" });
    expect(select().items.length).toBeGreaterThan(1);
    const calls: string[] = [];
    const originals = COLD.map(
      ([owner, name]) => [owner as unknown as Record<string, unknown>, name, (owner as unknown as Record<string, unknown>)[name]] as const,
    );
    for (const [owner, name, original] of originals)
      Object.defineProperty(owner, name, {
        configurable: true,
        writable: true,
        value(this: unknown, ...args: unknown[]) {
          calls.push(name);
          return (original as (...a: unknown[]) => unknown).apply(this, args);
        },
      });
    let shown: string;
    try {
      shown = select().text;
    } finally {
      for (const [owner, name, original] of originals) Object.defineProperty(owner, name, { configurable: true, writable: true, value: original });
    }
    expect(shown).toContain("Priya owns the redirect tests");
    expect(calls).toEqual([]);
  });
});
