/**
 * Answers rendered as Markdown while they stream: markdansi renders each finished piece
 * (a line, or a whole fenced code block or table) to ANSI, word-wrapped to the terminal's width
 * at the time it is drawn (so a resize takes effect on what follows), and @speed-highlight/core
 * colours code blocks. Without colour (NO_COLOR, a pipe, TERM=dumb) the same layout is plain
 * text. Both libraries are loaded by `loadMarkdown`, on the first turn, never at start-up.
 */

export interface MarkdownStream {
  /** An appended piece of the answer → the text to write now (whole lines only; may be empty). */
  push(delta: string): string;
  /** The rest, once the answer ends; the stream is then ready for the next answer. */
  finish(): string;
}

export interface MarkdownOptions {
  /** The width to wrap to, read for every piece drawn. */
  width: () => number;
  colour: boolean;
}

type _Markdansi = typeof import("markdansi");
type _Tokenize = typeof import("@speed-highlight/core/tokenize");
type _Language = Parameters<_Tokenize["tokenizeWith"]>[1];

export interface MarkdownModule {
  create(options: MarkdownOptions): MarkdownStream;
}

let _loaded: Promise<MarkdownModule> | undefined;

/** Loads the renderer and the highlighter once; later calls share the first load. */
export function loadMarkdown(): Promise<MarkdownModule> {
  _loaded ??= _load();
  return _loaded;
}

async function _load(): Promise<MarkdownModule> {
  const [markdansi, tokenize, theme, languages] = await Promise.all([
    import("markdansi"),
    import("@speed-highlight/core/tokenize"),
    import("@speed-highlight/core/themes/default.js"),
    _languages(),
  ]);
  const colours = theme.default as Record<string, string>;
  const highlight = (code: string, lang?: string): string => {
    const language = lang ? languages[_ALIASES[lang.toLowerCase()] ?? lang.toLowerCase()] : undefined;
    if (!language) return code;
    let out = "";
    tokenize.tokenizeWith(code, language, (text, type) => {
      const colour = type ? colours[type] : undefined;
      out += colour && text ? `${colour}${text}\x1b[39m` : text;
    });
    return out;
  };
  return { create: (options) => _stream(markdansi, options, highlight) };
}

function _stream(markdansi: _Markdansi, options: MarkdownOptions, highlight: (code: string, lang?: string) => string): MarkdownStream {
  const render = (markdown: string) =>
    markdansi.render(markdown, {
      width: Math.max(20, options.width()),
      wrap: true,
      color: options.colour,
      hyperlinks: false,
      codeBox: false,
      ...(options.colour ? { highlighter: highlight } : {}),
    });
  const streamer = markdansi.createMarkdownStreamer({ render, spacing: "single" });
  return {
    push: (delta) => streamer.push(delta),
    finish() {
      const rest = streamer.finish();
      streamer.reset();
      return rest;
    },
  };
}

const _ALIASES: Record<string, string> = {
  typescript: "ts",
  tsx: "ts",
  javascript: "js",
  jsx: "js",
  mjs: "js",
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "bash",
  python: "py",
  rust: "rs",
  golang: "go",
  yml: "yaml",
  dockerfile: "docker",
  markdown: "md",
  patch: "diff",
};

/** The languages highlighted: imported by name so the compiled binary holds them. */
async function _languages(): Promise<Record<string, _Language>> {
  const loaded = await Promise.all([
    import("@speed-highlight/core/languages/ts.js"),
    import("@speed-highlight/core/languages/js.js"),
    import("@speed-highlight/core/languages/json.js"),
    import("@speed-highlight/core/languages/bash.js"),
    import("@speed-highlight/core/languages/py.js"),
    import("@speed-highlight/core/languages/rs.js"),
    import("@speed-highlight/core/languages/go.js"),
    import("@speed-highlight/core/languages/c.js"),
    import("@speed-highlight/core/languages/java.js"),
    import("@speed-highlight/core/languages/css.js"),
    import("@speed-highlight/core/languages/html.js"),
    import("@speed-highlight/core/languages/sql.js"),
    import("@speed-highlight/core/languages/yaml.js"),
    import("@speed-highlight/core/languages/toml.js"),
    import("@speed-highlight/core/languages/diff.js"),
    import("@speed-highlight/core/languages/docker.js"),
    import("@speed-highlight/core/languages/md.js"),
  ]);
  const names = ["ts", "js", "json", "bash", "py", "rs", "go", "c", "java", "css", "html", "sql", "yaml", "toml", "diff", "docker", "md"];
  return Object.fromEntries(names.map((name, index) => [name, loaded[index]!.default as _Language]));
}
