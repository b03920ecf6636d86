/**
 * The style sheet and script every HTML export inlines (html.ts). No URL appears in either: the
 * page loads nothing. The script filters messages as the search box is typed into (a message
 * stays when it holds every word, case-insensitive; a compaction block stays when its summary or
 * one of its messages does), says how many are left, and opens every fold for printing.
 */

export const EXPORT_CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa;
  --user: #ddf4ff; --user-line: #54aeff; --tool: #fbfbfc; --add: #dafbe1; --add-fg: #116329; --del: #ffebe9; --del-fg: #82071e;
  --hunk: #6639ba; --error: #cf222e; --mark: #fff8c5; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23; --user: #0c2d4b; --user-line: #1f6feb;
    --tool: #10151c; --add: #12261e; --add-fg: #3fb950; --del: #2d1214; --del-fg: #f85149; --hunk: #ab7df8; --error: #f85149; --mark: #4d3d0a; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
.page { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
h2 { font-size: 1rem; margin: 1.5rem 0 .5rem; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.kind { color: var(--muted); margin: 0 0 1rem; font-family: ui-monospace, "SF Mono", Menlo, monospace; font-size: .85rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; padding: .75rem 1rem; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; font-size: .9rem; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
ul.todos { list-style: none; padding: 0; margin: 0; }
ul.todos li { padding: .15rem 0; }
ul.todos .mark { font-family: ui-monospace, monospace; color: var(--muted); margin-right: .5rem; }
ul.todos li.done { color: var(--muted); text-decoration: line-through; }
.toolbar { position: sticky; top: 0; z-index: 1; display: flex; gap: .75rem; align-items: center; padding: .6rem 0; margin: 1rem 0 .5rem; background: var(--bg); border-bottom: 1px solid var(--line); }
.toolbar input { flex: 1; font: inherit; padding: .4rem .6rem; color: var(--fg); background: var(--panel); border: 1px solid var(--line); border-radius: 6px; }
.toolbar .count { color: var(--muted); font-size: .85rem; white-space: nowrap; }
.msg { margin: .6rem 0; border: 1px solid var(--line); border-radius: 8px; background: var(--bg); }
.msg .role { font-size: .75rem; font-weight: 600; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); padding: .45rem .8rem 0; }
.msg .body { padding: .25rem .8rem .6rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.prompt { background: var(--user); border-color: var(--user-line); }
.msg.tool, .msg.notice { background: var(--tool); font-size: .9rem; }
.msg.notice .body { color: var(--muted); padding-top: .5rem; }
.msg details > summary { cursor: pointer; padding: .45rem .8rem; list-style-position: inside; overflow-wrap: anywhere; }
.msg details > summary code { font-family: ui-monospace, "SF Mono", Menlo, monospace; font-size: .85rem; }
.msg .tool-name { font-weight: 600; }
.msg .error { color: var(--error); font-weight: 600; }
pre { margin: 0 .8rem .6rem; padding: .5rem .7rem; overflow-x: auto; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; font: .82rem/1.45 ui-monospace, "SF Mono", Menlo, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
pre .label { display: block; color: var(--muted); font-size: .7rem; text-transform: uppercase; margin-bottom: .2rem; }
pre .add { display: block; background: var(--add); color: var(--add-fg); }
pre .del { display: block; background: var(--del); color: var(--del-fg); }
pre .hunk { display: block; color: var(--hunk); }
.msg.compaction { border-style: dashed; }
.msg.compaction > details > .inner { padding: 0 .8rem; }
.msg.compaction .summary { padding: .2rem .8rem .7rem; white-space: pre-wrap; }
.msg.compaction .summary b { color: var(--muted); }
.hidden { display: none !important; }
.empty { color: var(--muted); text-align: center; padding: 2rem 0; }
footer { margin-top: 2rem; color: var(--muted); font-size: .8rem; }
@media print {
  :root { --bg: #fff; --fg: #000; --panel: #f6f8fa; }
  .toolbar { display: none; }
  .page { max-width: none; padding: 0; }
  .msg { break-inside: avoid; }
  pre { white-space: pre-wrap; }
}
`;

export const EXPORT_SCRIPT = `
(function () {
  var input = document.getElementById("search");
  var count = document.getElementById("count");
  var empty = document.getElementById("empty");
  var leaves = Array.prototype.slice.call(document.querySelectorAll(".msg:not(.compaction)"));
  var blocks = Array.prototype.slice.call(document.querySelectorAll(".msg.compaction"));
  var texts = leaves.map(function (el) { return el.textContent.toLowerCase(); });
  function apply() {
    var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    leaves.forEach(function (el, i) {
      var keep = words.every(function (word) { return texts[i].indexOf(word) >= 0; });
      el.classList.toggle("hidden", !keep);
      if (keep) shown += 1;
      var fold = el.querySelector("details");
      if (fold && words.length > 0 && keep) fold.open = true;
    });
    blocks.forEach(function (block) {
      var summary = block.querySelector(".summary");
      var own = summary ? summary.textContent.toLowerCase() : "";
      var inner = block.querySelectorAll(".msg:not(.hidden)").length > 0;
      var keep = words.length === 0 || inner || words.every(function (word) { return own.indexOf(word) >= 0; });
      block.classList.toggle("hidden", !keep);
      if (words.length > 0 && inner) block.querySelector("details").open = true;
    });
    count.textContent = words.length === 0 ? leaves.length + " messages" : shown + " of " + leaves.length + " messages";
    empty.classList.toggle("hidden", words.length === 0 || shown > 0);
  }
  input.addEventListener("input", apply);
  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) { return !d.open; });
    opened.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () { opened.forEach(function (d) { d.open = false; }); });
  apply();
})();
`;
