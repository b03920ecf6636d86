/**
 * Counting one ascending list of document numbers in another (segmented-index.ts: a segment's
 * tombstones in a word's postings, for the word's live document frequency).
 */
/**
 * How many of `wanted` (ascending, distinct) are in `docs` (ascending, distinct): each looked up
 * by binary search while there are few of them (a segment's tombstones against a word's postings:
 * a handful against thousands), else one walk of both.
 */
export function countSortedIn(docs: Uint32Array, wanted: Uint32Array): number {
  let count = 0;
  if (wanted.length * 16 < docs.length) {
    for (let w = 0; w < wanted.length; w++) {
      const doc = wanted[w]!;
      let low = 0;
      let high = docs.length;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (docs[mid]! < doc) low = mid + 1;
        else high = mid;
      }
      if (low < docs.length && docs[low] === doc) count++;
    }
    return count;
  }
  for (let i = 0, w = 0; i < docs.length && w < wanted.length; ) {
    if (docs[i]! < wanted[w]!) i++;
    else if (docs[i]! > wanted[w]!) w++;
    else {
      count++;
      i++;
      w++;
    }
  }
  return count;
}
