/**
 * A careful scanner of a TypeScript module's imports, for the layers test (TypeScript 7 ships no
 * compiler API). It lexes the source — comments, strings, template literals with `${}` nesting
 * and regular-expression literals — so that text inside them never counts, then reports every
 * module specifier: `import … from`, `import type … from`, `export … from`, side-effect
 * `import "x"`, dynamic `import("x")` and type-position `import("x").T`.
 */
export interface ScannedImport {
  specifier: string;
  kind: "static" | "dynamic";
}

/** A lexed token: template-literal text and comments are dropped, strings keep their value. */
export type Token = { kind: "word" | "punct" | "string"; text: string };
type _Token = Token;

/** Tokens after which a `/` starts a regular expression rather than a division. */
const _REGEX_AFTER_WORDS = new Set(["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await"]);

export function tokenize(source: string): Token[] {
  const tokens: _Token[] = [];
  const braces: ("code" | "template")[] = [];
  let i = 0;
  const readTemplate = (): void => {
    // At the character after "`" or after the "}" closing a `${…}`.
    while (i < source.length) {
      const c = source[i]!;
      if (c === "\\") i += 2;
      else if (c === "`") {
        i++;
        tokens.push({ kind: "punct", text: "`" });
        return;
      } else if (c === "$" && source[i + 1] === "{") {
        i += 2;
        braces.push("template");
        tokens.push({ kind: "punct", text: "${" });
        return;
      } else i++;
    }
  };
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (/\s/.test(c)) i++;
    else if (c === "/" && next === "/") while (i < source.length && source[i] !== "\n") i++;
    else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === "'" || c === '"') {
      let text = "";
      i++;
      while (i < source.length && source[i] !== c) {
        if (source[i] === "\\") {
          text += source[i + 1] ?? "";
          i += 2;
        } else text += source[i++];
      }
      i++;
      tokens.push({ kind: "string", text });
    } else if (c === "`") {
      i++;
      readTemplate();
    } else if (c === "/" && _regexAllowed(tokens.at(-1))) {
      i++;
      let inClass = false;
      while (i < source.length && (inClass || source[i] !== "/")) {
        if (source[i] === "\\") i++;
        else if (source[i] === "[") inClass = true;
        else if (source[i] === "]") inClass = false;
        i++;
      }
      i++;
      while (/[a-z]/i.test(source[i] ?? "")) i++;
      tokens.push({ kind: "word", text: "<regex>" });
    } else if (/[A-Za-z_$0-9]/.test(c)) {
      const start = i;
      while (i < source.length && /[A-Za-z_$0-9]/.test(source[i]!)) i++;
      tokens.push({ kind: "word", text: source.slice(start, i) });
    } else {
      i++;
      if (c === "{") braces.push("code");
      if (c === "}" && braces.pop() === "template") {
        readTemplate();
        continue;
      }
      tokens.push({ kind: "punct", text: c });
    }
  }
  return tokens;
}

function _regexAllowed(previous: _Token | undefined): boolean {
  if (!previous) return true;
  if (previous.kind === "string") return false;
  if (previous.kind === "word") return _REGEX_AFTER_WORDS.has(previous.text);
  return !(previous.text === ")" || previous.text === "]" || previous.text === "}" || previous.text === "`");
}

export function scanImports(source: string): ScannedImport[] {
  const tokens = tokenize(source);
  const found: ScannedImport[] = [];
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    if (token.kind !== "word") continue;
    const after = tokens[t + 1];
    const before = tokens[t - 1];
    const afterDot = before?.kind === "punct" && before.text === ".";
    if (token.text === "from" && !afterDot && after?.kind === "string") found.push({ specifier: after.text, kind: "static" });
    if (token.text === "import" && !afterDot && after?.kind === "string") found.push({ specifier: after.text, kind: "static" });
    if (token.text === "import" && !afterDot && after?.text === "(" && tokens[t + 2]?.kind === "string")
      found.push({ specifier: tokens[t + 2]!.text, kind: "dynamic" });
  }
  return found;
}
