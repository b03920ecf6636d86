/**
 * Note and episode text as it may enter a prompt: it can never open or close the `<memory>` data
 * block, nor any other tag, nor start a line of its own.
 *
 * Fails closed rather than spotting tag names: `&`, `<` and `>` become `&amp;`, `&lt;` and `&gt;`
 * (so a `&lt;/memory&gt;` written in a note arrives as `&amp;lt;/memory&amp;gt;`, not as a decoded
 * tag); every character that looks like an angle bracket (full-width, small, guillemets,
 * mathematical and CJK angle brackets, modifier arrowheads…) becomes a numeric reference
 * (`&#xFF1C;`); invisible characters (format characters: zero-width spaces and joiners, bidi
 * controls, soft hyphens, Unicode tag characters; variation selectors) are dropped; control
 * characters and line or paragraph separators become one space each. Whatever spelling a note
 * uses, the escaped text holds no `<` or `>` and no character that renders like one.
 *
 * Every place memory text enters a prompt or a tool result goes through `escapeMemoryText`: the
 * memory section (lib/agent/memory-prompt.ts), recall's lines (memory-recall.ts,
 * lib/find/recall-everything.ts, lib/find/recall-transcripts.ts), the remember tool's answer and
 * the memory-compaction request (lib/agent/memory-compaction.ts) and the episode-summary request
 * (lib/agent/episode-recorder.ts), whose replies are read back with `unescapeMemoryText`.
 */

const _LOOKALIKES =
  /[\u00AB\u00BB\u02C2\u02C3\u02F1\u02F2\u1438\u1433\u2039\u203A\u2329\u232A\u276C-\u2771\u27E8-\u27EF\u2985-\u2992\u29FC\u29FD\u3008-\u300B\u3014\u3015\uFE64\uFE65\uFF1C\uFF1E]/gu;
const _INVISIBLE = /[\p{Cf}\uFE00-\uFE0F\u{E0100}-\u{E01EF}\u115F\u1160\u3164\uFFA0]/gu;
const _BREAKS = /[\p{Cc}\u2028\u2029]/gu;

// Printable ASCII but `&`, `<` and `>`, and the two marks shiro's own lines add (`·` between an
// episode's parts, `…` where a text is cut; neither is a break, invisible, a look-alike or, under
// NFKC, an angle bracket): every step below leaves them as they are (each changes only other
// characters, one at a time), so such a text is answered by one test: most notes, every id, date,
// path and status of an episode line, and recall's episode lines and snippets (the seven passes
// and a normalisation per `·` or `…` cost a recall's answer 0.1–0.2 ms).
const _UNCHANGED = /^[\x20-\x25\x27-\x3b\x3d\x3f-\x7e\u00b7\u2026]*$/;

/** `text` made safe to sit between the memory section's tags (see the module comment). */
export function escapeMemoryText(text: string): string {
  if (_UNCHANGED.test(text)) return text;
  return text
    .replace(_BREAKS, " ")
    .replace(_INVISIBLE, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(_LOOKALIKES, (char) => `&#x${char.codePointAt(0)!.toString(16).toUpperCase()};`)
    .replace(/[^\x00-\x7F]/gu, (char) => (/[<>]/.test(char.normalize("NFKC")) ? `&#x${char.codePointAt(0)!.toString(16).toUpperCase()};` : char));
}

const _REFERENCE = /&(?:amp|lt|gt|#x([0-9A-F]{1,6}));/g;

/**
 * The inverse of `escapeMemoryText` for what it encodes (`&amp;`, `&lt;`, `&gt;` and the numeric
 * references it writes), in one pass, for model text that quoted escaped notes (a compaction
 * reply): dropped and spaced characters do not come back. A reference escapeMemoryText would not
 * write stays as it is.
 */
export function unescapeMemoryText(text: string): string {
  return text.replace(_REFERENCE, (whole, hex: string | undefined) => {
    if (whole === "&amp;") return "&";
    if (whole === "&lt;") return "<";
    if (whole === "&gt;") return ">";
    const point = Number.parseInt(hex!, 16);
    if (point > 0x10ffff) return whole;
    const char = String.fromCodePoint(point);
    return escapeMemoryText(char) === whole ? char : whole;
  });
}
