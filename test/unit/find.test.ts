/**
 * The pure parts of search and export: `--since` spellings, snippets and their marks, what of a
 * session and a run is indexed (archives and span summaries included), the transcript index's
 * incremental update, and the export renderers' escaping and redaction.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { parseSince } from "../../lib/find/since.ts";
import { buildSnippet, renderSnippet } from "../../lib/find/snippet.ts";
import { runDocText, runDocs, sessionDocText, sessionDocs } from "../../lib/find/transcript-docs.ts";
import { openTranscriptIndex, readSession } from "../../lib/find/transcript-index.ts";
import { buildExportDoc } from "../../lib/export/export-doc.ts";
import { renderHtml } from "../../lib/export/html.ts";
import { renderMarkdown } from "../../lib/export/markdown.ts";
import { UsageError } from "../../lib/platform/errors.ts";
import { createStyle } from "../../lib/ui/style.ts";
import { runSlashCommand } from "../../lib/ui/slash/slash.ts";
import { paths } from "../../lib/platform/paths.ts";
import { writeJsonAtomic } from "../../lib/state-file/json-file.ts";
import type { LoggedEvent, RunSnapshot } from "../../lib/store/runs.ts";
import type { SessionRecord } from "../../lib/store/session-record.ts";
import { readSessionMessages } from "../../lib/store/sessions.ts";
import { buildFakeSecrets } from "../fixtures/fake-secrets.ts";
import { useTempHome } from "./temp-home.ts";

const NOW = new Date("2026-12-01T12:00:00.000Z");

describe("--since", () => {
  test("every spelling of a week ago is the same instant; dates are local midnight", () => {
    const week = new Date(NOW.getTime() - 7 * 86_400_000).getTime();
    for (const text of ["7d", "1w", "168h", "10080m", "10080min", " 7D ", "7 d"])
      expect({ text, at: parseSince(text, NOW).getTime() }).toEqual({ text, at: week });
    expect(parseSince("2026-11-01", NOW).getTime()).toBe(new Date(2026, 10, 1).getTime());
    expect(parseSince("2026-11-01T09:30Z", NOW).toISOString()).toBe("2026-11-01T09:30:00.000Z");
    for (const bad of ["", "yesterday", "7", "3x", "2026-13-45", "d7", "1.2.3d"]) expect(() => parseSince(bad, NOW)).toThrow(UsageError);
  });
});

describe("snippets", () => {
  test("a window around the first match, every term marked, whatever the case or joiners", () => {
    const text = `${"lead ".repeat(60)}the Zebra parser stalled;\n\nthe zebra-parser lock waits`;
    const snippet = buildSnippet(text, "zebra PARSERS", 60);
    expect(snippet.text.startsWith("…")).toBe(true);
    expect(snippet.marks.map(([from, to]) => snippet.text.slice(from, to))).toEqual(["Zebra", "parser", "zebra", "parser"]);
    expect(renderSnippet(snippet, "**", "**")).toContain("**Zebra** **parser** stalled; the **zebra**-**parser**");
    expect(renderSnippet(snippet, "", "")).toBe(snippet.text);
    expect(buildSnippet("short text", "absent").text).toBe("short text");
    expect(buildSnippet("a (b) [c] $d flamingo-probe", "flamingo-probe (b)").marks.length).toBeGreaterThan(0);
  });
});

const SESSION: SessionRecord = {
  version: 1,
  id: "0190aaaa-0000-7000-8000-000000000001",
  createdAt: "2026-11-01T10:00:00.000Z",
  updatedAt: "2026-11-01T11:00:00.000Z",
  cwd: "/work/app",
  provider: "openai",
  model: "gpt-5",
  title: "fix <b>it</b>",
  inputTokens: 10,
  outputTokens: 5,
  notebook: { todos: [{ content: "a <task>", status: "done" }] },
  exchanges: [{ query: "first ask", answer: "", status: "completed", steps: 1, runId: "r1", at: "2026-11-01T10:05:00.000Z" }],
  messages: [
    { role: "user", content: "first ask about the walrus" },
    {
      role: "assistant",
      parts: [
        { type: "text", text: "Looking." },
        { type: "tool-call", id: "c1", name: "bash", input: { command: "grep walrus -r ." } },
      ],
    },
    { role: "tool", results: [{ type: "tool-result", callId: "c1", name: "bash", output: "walrus.ts:1 <script>alert(1)</script>" }] },
    { role: "assistant", parts: [{ type: "text", text: "Found the walrus." }] },
    { role: "user", content: "second ask" },
  ],
  compaction: {
    spans: [{ from: 1, to: 3, summary: "Searched for the walrus.", createdAt: "2026-11-01T10:30:00.000Z" }],
    archive: [{ at: "2026-10-01T00:00:00.000Z", messages: [{ role: "user", content: "archived narwhal question" }], summary: "An older narwhal talk." }],
  },
};

/** A prompt of many passages, bookkeeping calls and a denial among the calls. */
const PARAGRAPHS = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${"words about the topic ".repeat(8).trim()}`);
const LONG_SESSION: SessionRecord = {
  ...SESSION,
  compaction: undefined,
  messages: [
    { role: "user", content: PARAGRAPHS.join("\n\n") },
    {
      role: "assistant",
      parts: [
        { type: "tool-call", id: "k1", name: "recall", input: { query: "walrus plans" } },
        { type: "tool-call", id: "k2", name: "bash", input: { command: "rm -rf /" } },
        { type: "tool-call", id: "k3", name: "grep", input: { pattern: "walrus" } },
      ],
    },
    {
      role: "tool",
      results: [
        { type: "tool-result", callId: "k1", name: "recall", output: "session 0193 walrus", bookkeeping: true },
        { type: "tool-result", callId: "k2", name: "bash", output: "denied by rule", isError: true, bookkeeping: true },
        { type: "tool-result", callId: "k3", name: "grep", output: "walrus.ts:1" },
      ],
    },
  ],
} as SessionRecord;

describe("what is indexed", () => {
  test("a session: messages, tool calls and results, span summaries and archived transcripts, each with its time", () => {
    expect(sessionDocs(SESSION).map((doc) => [doc.id, doc.data.role, doc.data.tool ?? "", doc.data.at, doc.text])).toEqual([
      ["a0.m0", "prompt", "", "2026-10-01T00:00:00.000Z", "archived narwhal question"],
      ["a0.sum", "summary", "", "2026-10-01T00:00:00.000Z", "An older narwhal talk."],
      ["m0", "prompt", "", "2026-11-01T10:05:00.000Z", "first ask about the walrus"],
      ["m1", "answer", "", "2026-11-01T10:05:00.000Z", "Looking."],
      ["m1.c0", "tool-call", "bash", "2026-11-01T10:05:00.000Z", "bash grep walrus -r ."],
      ["m2.r0", "tool-result", "bash", "2026-11-01T10:05:00.000Z", "walrus.ts:1 <script>alert(1)</script>"],
      ["m3", "answer", "", "2026-11-01T10:05:00.000Z", "Found the walrus."],
      ["m4", "prompt", "", "2026-11-01T11:00:00.000Z", "second ask"],
      ["s0", "summary", "", "2026-11-01T10:30:00.000Z", "Searched for the walrus."],
    ]);
  });

  test("a run: its prompt and the events that carry text", () => {
    const run = { id: "r1", cwd: "/work/app", prompt: "the ask", startedAt: "2026-11-01T10:00:00.000Z" } as RunSnapshot;
    const events = [
      { seq: 1, at: "t1", type: "run-start", runId: "r1", sessionId: "s", cwd: "/work/app", provider: "p", model: "m", agent: "a", protocol: "x" },
      { seq: 2, at: "t2", type: "tool-call", id: "c", name: "read_file", input: { path: "a.ts" } },
      { seq: 3, at: "t3", type: "tool-error", id: "c", name: "read_file", error: "no such file" },
      { seq: 4, at: "t4", type: "message", text: "Done.", step: 1 },
      { seq: 5, at: "t5", type: "notice", text: "a notice" },
      { seq: 6, at: "t6", type: "tool-call", id: "k", name: "recall", input: { query: "walrus plans" } },
      { seq: 7, at: "t7", type: "tool-result", id: "k", name: "recall", output: "session 0193 walrus", bookkeeping: true },
      { seq: 8, at: "t8", type: "tool-denied", id: "d", name: "bash", reason: "denied by rule", by: "rule" },
    ] as LoggedEvent[];
    expect(runDocs(run, events).map((doc) => [doc.id, doc.data.role, doc.text])).toEqual([
      ["prompt", "prompt", "the ask"],
      ["e2", "tool-call", "read_file a.ts"],
      ["e3", "tool-error", "no such file"],
      ["e4", "answer", "Done."],
    ]);
  });

  test("one run document's text from its event alone is the text runDocs gives it; only the prompt reads the snapshot", () => {
    const run = { id: "r1", cwd: "/work/app", prompt: PARAGRAPHS.join("\n\n"), startedAt: "2026-11-01T10:00:00.000Z" } as RunSnapshot;
    const events = [
      { seq: 1, at: "t1", type: "message", text: PARAGRAPHS.slice(0, 12).join("\n\n"), step: 1 },
      { seq: 2, at: "t2", type: "tool-call", id: "k", name: "recall", input: { query: "walrus plans" } },
      { seq: 3, at: "t3", type: "tool-result", id: "k", name: "recall", output: "session 0193 walrus", bookkeeping: true },
      { seq: 4, at: "t4", type: "tool-result", id: "g", name: "grep", output: "walrus.ts:1" },
      { seq: 5, at: "t5", type: "notice", text: "a notice" },
    ] as LoggedEvent[];
    let reads = 0;
    const snapshot = () => (reads++, run);
    const docs = runDocs(run, events);
    expect(docs.filter((doc) => doc.id.startsWith("e")).map((doc) => [doc.id, runDocText(events, doc.id, snapshot)])).toEqual(
      docs.filter((doc) => doc.id.startsWith("e")).map((doc) => [doc.id, doc.text]),
    );
    expect(reads).toBe(0);
    expect(docs.filter((doc) => doc.id.startsWith("prompt")).map((doc) => [doc.id, runDocText(events, doc.id, snapshot)])).toEqual(
      docs.filter((doc) => doc.id.startsWith("prompt")).map((doc) => [doc.id, doc.text]),
    );
    expect(docs.length).toBeGreaterThan(6);
    const absent = ["prompt", "prompt.p99", "e1", "e1.p99", "e2", "e3", "e4.p0", "e5", "e9", "x"];
    expect(absent.map((id) => [id, runDocText(events, id, snapshot)])).toEqual(absent.map((id) => [id, undefined]));
    expect(runDocText(events, "prompt.p0", () => undefined)).toBeUndefined();
  });

  test("only what was said: bookkeeping calls and results and denials are not documents; a long text is one document per passage", () => {
    const session = LONG_SESSION;
    const docs = sessionDocs(session);
    const prompt = docs.filter((doc) => doc.id.startsWith("m0."));
    expect(prompt.length).toBeGreaterThan(3);
    expect(prompt.every((doc) => doc.text.length <= 900 && doc.id.match(/^m0\.p\d+$/))).toBe(true);
    expect(prompt.map((doc) => doc.text).join("\n\n")).toBe(PARAGRAPHS.join("\n\n").trim());
    expect(docs.filter((doc) => !doc.id.startsWith("m0.")).map((doc) => [doc.id, doc.text])).toEqual([
      ["m1.c2", "grep walrus"],
      ["m2.r2", "walrus.ts:1"],
    ]);
  });
});

describe("the transcript index", () => {
  useTempHome("shiro-find-");
  let counter = 0;
  const writeSession = (session: SessionRecord) => {
    // As the session store writes: a new file renamed into place.
    writeJsonAtomic(paths.session(session.id), session);
  };
  beforeEach(() => (counter += 1));
  afterEach(() => rmSync(paths.transcriptIndex(), { recursive: true, force: true }));

  /** Document `id`'s text as a search's snippet reads it: from the session's file, one message checked. */
  const docText = (id: string, docId: string) => {
    const messages = readSessionMessages(id);
    return messages && sessionDocText(messages, docId, () => readSession(id));
  };

  test("one document's text from its message alone is the text sessionDocs gives it; an id of no document gives none", () => {
    for (const session of [SESSION, LONG_SESSION]) {
      writeSession(session);
      const docs = sessionDocs(session);
      expect(docs.map((doc) => [doc.id, docText(session.id, doc.id)])).toEqual(docs.map((doc) => [doc.id, doc.text]));
    }
    writeSession(SESSION);
    const absent = ["m0.p0", "m1.p1", "m1.c1", "m1.c9", "m2.r1", "m2", "m2.c0", "m3.r0", "m4.p0", "m9", "s5", "a0.m5", "a1.sum", "x", "m-1", "m1.c"];
    expect(absent.map((id) => [id, docText(SESSION.id, id)])).toEqual(absent.map((id) => [id, undefined]));
    writeSession(LONG_SESSION);
    const long = ["m0", "m0.p99", "m1.c0", "m1.c1", "m2.r0", "m2.r1", "m2.r2.p0"];
    expect(long.map((id) => [id, docText(LONG_SESSION.id, id)])).toEqual(long.map((id) => [id, undefined]));
  });

  test("a snippet's message is checked alone: a flaw elsewhere in the record leaves it readable, a flaw in it gives no text, another format or id nothing", () => {
    const flawed = {
      ...SESSION,
      exchanges: [{ ...SESSION.exchanges[0]!, status: "exploded" }],
      messages: [SESSION.messages[0]!, { role: "assistant", parts: [{ type: "text", text: 7 }] }, ...SESSION.messages.slice(2)],
    };
    writeJsonAtomic(paths.session(SESSION.id), flawed);
    expect(readSession(SESSION.id)).toBeUndefined();
    expect(["m0", "m1", "m2.r0", "s0"].map((id) => docText(SESSION.id, id))).toEqual([
      "first ask about the walrus",
      undefined,
      "walrus.ts:1 <script>alert(1)</script>",
      undefined,
    ]);
    for (const other of [
      { ...SESSION, version: 2 },
      { ...SESSION, id: "0190aaaa-0000-7000-8000-000000000009" },
      { ...SESSION, messages: {} },
    ]) {
      writeJsonAtomic(paths.session(SESSION.id), other);
      expect(readSessionMessages(SESSION.id)).toBeUndefined();
    }
    expect(readSessionMessages("0190aaaa-0000-7000-8000-00000000000f")).toBeUndefined();
  });

  test("follows sessions as they are written and removed", () => {
    writeSession(SESSION);
    // prompt, tool call, tool result, answer and the span's summary
    expect(openTranscriptIndex().search("walrus", { limit: 10 }).length).toBe(5);
    writeSession({ ...SESSION, messages: [...SESSION.messages, { role: "user", content: "a walrus again" }] });
    expect(openTranscriptIndex().search("walrus", { limit: 10 }).length).toBe(6);
    const other = {
      ...SESSION,
      id: `0190bbbb-0000-7000-8000-00000000000${counter}`,
      messages: [{ role: "user" as const, content: "walrus elsewhere" }],
      compaction: undefined,
    };
    writeSession(other);
    expect(openTranscriptIndex().search("walrus", { limit: 10 }).length).toBe(7);
    rmSync(paths.session(SESSION.id));
    expect(
      openTranscriptIndex()
        .search("walrus narwhal", { limit: 10 })
        .map((hit) => hit.segment),
    ).toEqual([`session:${other.id}`]);
  });

  test("/search in the REPL: this project's hits, plain without colour, bold with it; words required", async () => {
    writeSession(SESSION);
    writeSession({
      ...SESSION,
      id: "0190cccc-0000-7000-8000-000000000001",
      cwd: "/work/elsewhere",
      messages: [{ role: "user", content: "a walrus elsewhere" }],
      compaction: undefined,
    });
    const run = async (args: string, colour: boolean) => {
      let out = "";
      await runSlashCommand(`/search ${args}`, {
        agent: { session: { cwd: "/work/app" } } as never,
        write: (text) => (out += text),
        style: createStyle(colour),
      });
      return out;
    };
    const plain = (await run("narwhal", false)).trimEnd().split("\n");
    expect(plain).toHaveLength(2);
    expect(plain.every((line) => line.startsWith("session 0190aaaa  ") && line.includes("/work/app"))).toBe(true);
    expect(
      plain
        .map((line) =>
          line
            .split(/\s{2,}/)
            .slice(3)
            .join(" | "),
        )
        .sort(),
    ).toEqual(["prompt | archived narwhal question", "summary | An older narwhal talk."]);
    expect(await run("narwhal", true)).toContain("\x1b[1mnarwhal\x1b[22m");
    expect((await run("walrus", false)).includes("elsewhere")).toBe(false);
    expect(await run("", false)).toStartWith("usage: /search <words>");
  });
});

describe("export renderers", () => {
  const secret = buildFakeSecrets(0xe5).find((found) => found.kind === "github-token")!.value;
  const record = { kind: "session" as const, session: { ...SESSION, messages: [...SESSION.messages, { role: "user" as const, content: `token ${secret}` }] } };

  test("nothing from the record becomes markup, and secrets are redacted even in a record that was not", () => {
    const doc = buildExportDoc(record);
    const html = renderHtml(doc, NOW);
    expect(html).not.toContain("<script>alert(1)");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("<title>fix &lt;b&gt;it&lt;/b&gt; · shiro session</title>");
    const markdown = renderMarkdown(doc);
    for (const text of [html, markdown, JSON.stringify(doc)]) expect(text.includes(secret)).toBe(false);
    expect(html).toContain("token &lt;redacted:github-token&gt;");
    expect(markdown).toContain("token <redacted:github-token>");
    expect(markdown).toContain("<details><summary>Earlier transcript, compacted 2026-10-01 00:00</summary>");
    expect(markdown).toContain("> **Summary:** Searched for the walrus.");
  });

  test("a fence is longer than any backtick run inside it", () => {
    const doc = buildExportDoc({
      kind: "session",
      session: {
        ...SESSION,
        compaction: undefined,
        messages: [
          { role: "assistant", parts: [{ type: "tool-call", id: "c", name: "bash", input: { command: "echo '````'" } }] },
          { role: "tool", results: [{ type: "tool-result", callId: "c", name: "bash", output: "````" }] },
        ],
      },
    });
    expect(renderMarkdown(doc)).toContain("`````\n$ echo '````'\n`````");
  });
});
