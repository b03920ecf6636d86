/**
 * A small HTML → Markdown converter for web_fetch: headings, paragraphs, links, lists, code,
 * preformatted blocks, quotes and tables. Scripts, styles, navigation and other chrome are
 * dropped. It tolerates broken markup (unclosed tags, stray closers) rather than validating it;
 * the result is for a model to read, not for round-tripping.
 */

interface _Element {
  tag: string;
  attrs: Record<string, string>;
  children: _Node[];
}

type _Node = _Element | string;

/** Dropped with everything inside them. */
const _SKIPPED = new Set(["script", "style", "nav", "noscript", "template", "svg", "head", "iframe", "canvas", "object", "select", "dialog"]);
const _VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
/** Elements whose content is text up to their closing tag, never markup. */
const _RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp"]);
const _BLOCK = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "center",
  "dd",
  "details",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "html",
  "li",
  "main",
  "menu",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);
/** An open tag of one of these closes the innermost open element of the listed kinds, up to a boundary. */
const _IMPLIED_CLOSE: Record<string, { closes: string[]; stopAt: string[] }> = {
  li: { closes: ["li"], stopAt: ["ul", "ol", "menu"] },
  dt: { closes: ["dt", "dd"], stopAt: ["dl"] },
  dd: { closes: ["dt", "dd"], stopAt: ["dl"] },
  tr: { closes: ["tr", "td", "th"], stopAt: ["table", "thead", "tbody", "tfoot"] },
  td: { closes: ["td", "th"], stopAt: ["tr", "table"] },
  th: { closes: ["td", "th"], stopAt: ["tr", "table"] },
  option: { closes: ["option"], stopAt: ["select"] },
};

const _ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  copy: "©",
  reg: "®",
  trade: "™",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  bull: "•",
  middot: "·",
  times: "×",
  divide: "÷",
  deg: "°",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  sect: "§",
  para: "¶",
  shy: "",
  zwj: "",
  zwnj: "",
  rarr: "→",
  larr: "←",
  uarr: "↑",
  darr: "↓",
  check: "✓",
};

// Comments, CDATA, doctype / processing instructions, closing tags, opening tags (quotes respected).
// An unquoted `<` ends a would-be opening tag: otherwise every unclosed `<a` scans to the end of
// the page, quadratic time on a hostile one.
const _TOKEN =
  /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[([\s\S]*?)(?:\]\]>|$)|<[!?][^>]*>|<\/([a-zA-Z][\w:-]*)[^>]*>|<([a-zA-Z][\w:-]*)((?:"[^"]*"|'[^']*'|[^'"<>])*)>/g;
/** Elements nested deeper than this become siblings: the renderer recurses once per level. */
const _MAX_DEPTH = 256;
const _ATTRIBUTE = /([^\s"'>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

/** Converts an HTML document or fragment to Markdown; relative links resolve against `baseUrl`. */
export function htmlToMarkdown(html: string, baseUrl?: string): string {
  return _renderBlocks(_parseHtml(html).children, { baseUrl }, "\n\n").trim();
}

/** Decodes character references: named (a common subset), decimal and hex. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d+|#[xX][0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);?/g, (match, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return valid ? String.fromCodePoint(code) : "\uFFFD";
    }
    return _ENTITIES[name] ?? _ENTITIES[name.toLowerCase()] ?? match;
  });
}

function _parseHtml(html: string): _Element {
  const root: _Element = { tag: "#root", attrs: {}, children: [] };
  const stack: _Element[] = [root];
  const lower = html.toLowerCase();
  const top = () => stack[stack.length - 1]!;
  const addText = (text: string) => {
    if (text) top().children.push(decodeEntities(text));
  };
  let last = 0;
  _TOKEN.lastIndex = 0;
  for (let match = _TOKEN.exec(html); match; match = _TOKEN.exec(html)) {
    addText(html.slice(last, match.index));
    last = _TOKEN.lastIndex;
    const [, cdata, closing, opening, attrText] = match;
    if (cdata !== undefined) top().children.push(cdata);
    else if (closing) _closeElement(stack, closing.toLowerCase());
    else if (opening) {
      const tag = opening.toLowerCase();
      const element: _Element = { tag, attrs: _parseAttributes(attrText ?? ""), children: [] };
      _closeImplied(stack, tag);
      top().children.push(element);
      if (_RAW_TEXT.has(tag)) {
        const end = lower.indexOf(`</${tag}`, last);
        const stop = end === -1 ? html.length : end;
        if (stop > last) element.children.push(tag === "script" || tag === "style" ? html.slice(last, stop) : decodeEntities(html.slice(last, stop)));
        const after = end === -1 ? html.length : html.indexOf(">", end);
        last = after === -1 ? html.length : after + 1;
        _TOKEN.lastIndex = last;
      } else if (!_VOID.has(tag) && !(attrText ?? "").trimEnd().endsWith("/") && stack.length <= _MAX_DEPTH) stack.push(element);
    }
  }
  addText(html.slice(last));
  return root;
}

function _parseAttributes(text: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  _ATTRIBUTE.lastIndex = 0;
  for (let match = _ATTRIBUTE.exec(text); match; match = _ATTRIBUTE.exec(text)) {
    const name = match[1]!.toLowerCase();
    if (!(name in attrs)) attrs[name] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? "");
  }
  return attrs;
}

function _closeElement(stack: _Element[], tag: string): void {
  for (let i = stack.length - 1; i > 0; i--) {
    if (stack[i]!.tag === tag) {
      stack.length = i;
      return;
    }
  }
}

function _closeImplied(stack: _Element[], tag: string): void {
  const rule = _IMPLIED_CLOSE[tag];
  if (rule) {
    for (let i = stack.length - 1; i > 0 && !rule.stopAt.includes(stack[i]!.tag); i--) {
      if (rule.closes.includes(stack[i]!.tag)) {
        stack.length = i;
        return;
      }
    }
  }
  // A block start closes an open paragraph, as browsers do.
  if (_BLOCK.has(tag) && stack[stack.length - 1]?.tag === "p") stack.pop();
}

interface _RenderContext {
  baseUrl?: string;
}

function _isSkipped(element: _Element): boolean {
  return _SKIPPED.has(element.tag) || "hidden" in element.attrs || element.attrs["aria-hidden"] === "true";
}

/** Renders children as Markdown blocks: runs of inline content become paragraphs. */
function _renderBlocks(nodes: _Node[], ctx: _RenderContext, separator: string): string {
  const blocks: string[] = [];
  let inline = "";
  const flush = () => {
    const text = _tidyInline(inline);
    if (text) blocks.push(text);
    inline = "";
  };
  for (const node of nodes) {
    if (typeof node === "string") inline += _collapse(node);
    else if (_isSkipped(node)) continue;
    else if (_BLOCK.has(node.tag)) {
      flush();
      const block = _renderBlock(node, ctx);
      if (block) blocks.push(block);
    } else inline += _renderInline(node, ctx);
  }
  flush();
  return blocks.join(separator);
}

function _renderBlock(element: _Element, ctx: _RenderContext): string {
  const { tag } = element;
  if (/^h[1-6]$/.test(tag)) {
    const text = _tidyInline(_renderInlineChildren(element, ctx)).replace(/\n/g, " ");
    return text ? `${"#".repeat(Number(tag[1]))} ${text}` : "";
  }
  if (tag === "ul" || tag === "ol" || tag === "menu") return _renderList(element, ctx);
  if (tag === "pre") return _renderPre(element);
  if (tag === "blockquote") {
    const inner = _renderBlocks(element.children, ctx, "\n\n");
    return inner
      ? inner
          .split("\n")
          .map((line) => (line ? `> ${line}` : ">"))
          .join("\n")
      : "";
  }
  if (tag === "hr") return "---";
  if (tag === "table") return _renderTable(element, ctx);
  return _renderBlocks(element.children, ctx, "\n\n");
}

function _renderList(list: _Element, ctx: _RenderContext): string {
  const ordered = list.tag === "ol";
  let number = Number.parseInt(list.attrs.start ?? "1", 10);
  if (!Number.isFinite(number)) number = 1;
  const items: string[] = [];
  for (const child of list.children) {
    if (typeof child === "string" || _isSkipped(child)) continue;
    const content = child.tag === "li" ? _renderBlocks(child.children, ctx, "\n") : _renderBlock(child, ctx);
    if (!content) continue;
    const marker = ordered ? `${number++}. ` : "- ";
    const indent = " ".repeat(marker.length);
    items.push(
      content
        .split("\n")
        .map((line, i) => (i === 0 ? marker + line : line ? indent + line : line))
        .join("\n"),
    );
  }
  return items.join("\n");
}

function _renderPre(pre: _Element): string {
  const text = _extractText(pre).replace(/^\n/, "").replace(/\n+$/, "");
  if (!text.trim()) return "";
  const code = pre.children.find((child): child is _Element => typeof child !== "string" && child.tag === "code");
  const classes = `${pre.attrs.class ?? ""} ${code?.attrs.class ?? ""}`;
  const language = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(classes)?.[1] ?? "";
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

function _renderTable(table: _Element, ctx: _RenderContext): string {
  const rows: string[][] = [];
  const collect = (element: _Element) => {
    for (const child of element.children) {
      if (typeof child === "string" || _isSkipped(child)) continue;
      if (child.tag === "tr") {
        const cells = child.children
          .filter((cell): cell is _Element => typeof cell !== "string" && (cell.tag === "td" || cell.tag === "th"))
          .map((cell) => _tidyInline(_renderInlineChildren(cell, ctx)).replace(/\n/g, " ").replace(/\|/g, "\\|"));
        if (cells.length) rows.push(cells);
      } else if (child.tag !== "table") collect(child);
    }
  };
  collect(table);
  if (rows.length === 0) return "";
  const width = Math.max(...rows.map((row) => row.length));
  const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
  const separator = `| ${Array.from({ length: width }, () => "---").join(" | ")} |`;
  return [line(rows[0]!), separator, ...rows.slice(1).map(line)].join("\n");
}

function _renderInline(element: _Element, ctx: _RenderContext): string {
  if (_isSkipped(element)) return "";
  switch (element.tag) {
    case "br":
      return "\n";
    case "img": {
      const alt = _collapse(element.attrs.alt ?? "").trim();
      return alt ? `![${alt}](${_resolveHref(element.attrs.src ?? "", ctx)})` : "";
    }
    case "a": {
      const text = _tidyInline(_renderInlineChildren(element, ctx)).replace(/\n/g, " ");
      const href = element.attrs.href?.trim() ?? "";
      if (!text) return "";
      if (!href || href.startsWith("#") || /^javascript:/i.test(href)) return text;
      return `[${text}](${_resolveHref(href, ctx)})`;
    }
    case "code":
    case "kbd":
    case "samp":
    case "tt": {
      const text = _collapse(_extractText(element)).trim();
      if (!text) return "";
      return text.includes("`") ? `\`\` ${text} \`\`` : `\`${text}\``;
    }
    case "strong":
    case "b":
      return _wrap(_renderInlineChildren(element, ctx), "**");
    case "em":
    case "i":
      return _wrap(_renderInlineChildren(element, ctx), "*");
    default:
      return _renderInlineChildren(element, ctx);
  }
}

function _renderInlineChildren(element: _Element, ctx: _RenderContext): string {
  let out = "";
  for (const child of element.children) out += typeof child === "string" ? _collapse(child) : _renderInline(child, ctx);
  return out;
}

/** Wraps text in a marker, keeping the surrounding spaces outside it so Markdown still parses. */
function _wrap(text: string, marker: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
  return match[2] ? `${match[1]}${marker}${match[2]}${marker}${match[3]}` : text;
}

function _extractText(element: _Element): string {
  let out = "";
  for (const child of element.children) {
    if (typeof child === "string") out += child;
    else if (child.tag === "br") out += "\n";
    else if (!_isSkipped(child)) out += _extractText(child);
  }
  return out;
}

function _resolveHref(href: string, ctx: _RenderContext): string {
  try {
    return ctx.baseUrl ? new URL(href, ctx.baseUrl).href : href;
  } catch {
    return href;
  }
}

function _collapse(text: string): string {
  return text.replace(/[ \t\n\r\f\v]+/g, " ");
}

/** Trims a run of inline Markdown: single spaces, no spaces around line breaks. */
function _tidyInline(text: string): string {
  return text
    .replace(/ *\n */g, "\n")
    .replace(/ {2,}/g, " ")
    .trim();
}
