/**
 * Passages: a long text cut into bounded pieces so each is scored on its own. A fact in the
 * fortieth paragraph of a pasted conversation then sits in a passage as short as one near the top,
 * instead of being diluted by the whole document's length.
 *
 * Contract:
 * - Units are paragraphs (split at blank lines); a paragraph longer than `max` is split at line
 *   ends (a pasted dialogue's turns), a line longer than `max` at sentence ends, and a sentence
 *   longer than `max` at a space near `max` (at `max` when there is none).
 * - Consecutive units are packed greedily into passages of at most `max` characters (joined by a
 *   blank line); a unit never straddles two passages. Each passage is trimmed and non-empty.
 * - A text of at most `max` characters is one passage, itself trimmed. Pure: same text, same cut.
 */

export const PASSAGE_MAX = 900;

/** The passages of `text`, in order. */
export function splitPassages(text: string, max = PASSAGE_MAX): string[] {
  const whole = text.trim();
  if (whole.length <= max) return whole ? [whole] : [];
  const units = whole.split(/\n\s*\n/).flatMap((paragraph) => _bounded(paragraph.trim(), max));
  const passages: string[] = [];
  let current = "";
  for (const unit of units) {
    if (!unit) continue;
    if (current && current.length + 2 + unit.length > max) {
      passages.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${unit}` : unit;
  }
  if (current) passages.push(current);
  return passages;
}

function _bounded(paragraph: string, max: number): string[] {
  if (paragraph.length <= max) return [paragraph];
  const out: string[] = [];
  for (const line of paragraph.split("\n")) {
    if (line.length <= max) {
      _pack(out, line.trim(), max, "\n");
      continue;
    }
    for (const sentence of line.split(/(?<=[.!?])\s+/)) {
      if (sentence.length <= max) _pack(out, sentence, max, " ");
      else for (const piece of _hardCut(sentence, max)) out.push(piece);
    }
  }
  return out.filter(Boolean);
}

/** Appends `piece` to the last unit when both fit in `max`, else starts a new unit. */
function _pack(out: string[], piece: string, max: number, joiner: string): void {
  if (!piece) return;
  const last = out.length - 1;
  if (last >= 0 && out[last]!.length + joiner.length + piece.length <= max) out[last] = `${out[last]}${joiner}${piece}`;
  else out.push(piece);
}

function _hardCut(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const space = rest.lastIndexOf(" ", max);
    const cut = space > max / 2 ? space : max;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}
