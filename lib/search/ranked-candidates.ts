/**
 * The order a search takes its scored documents in: best first, a batch at a time, so taking the
 * first few of many candidates sorts only those (segmented-index.ts).
 */

/**
 * The scored documents (score > 0; `scores[p]` holds part p's from its document `bases[p]`), best first (equal scores: lower part, then lower document),
 * one per call. Taken in batches from the top (`first`, at least 64, then four times more each time): taking the
 * first few of many candidates sorts only those, and a filter that rejects many still gets all.
 */
export function rankedCandidates(
  scores: readonly Float64Array[],
  bases: readonly number[],
  touched: readonly Int32Array[],
  first = 64,
): () => [number, number, number] | undefined {
  const size = touched.reduce((sum, docs) => sum + docs.length, 0);
  const parts = new Int32Array(size);
  const docs = new Int32Array(size);
  const values = new Float64Array(size);
  let n = 0;
  touched.forEach((list, p) => {
    for (let i = 0; i < list.length; i++) {
      const doc = list[i]!;
      const value = scores[p]![doc - bases[p]!]!;
      if (!(value > 0)) continue;
      parts[n] = p;
      docs[n] = doc;
      values[n] = value;
      n += 1;
    }
  });
  const work = values.slice(0, n);
  let batch: number[] = [];
  let at = 0;
  let taken = 0;
  let upper = Number.POSITIVE_INFINITY;
  let want = Math.max(64, first);
  return () => {
    while (at >= batch.length) {
      if (taken >= n) return undefined;
      const low = _selectAscending(work, n - Math.min(n, taken + want));
      want *= 4;
      batch = [];
      for (let i = 0; i < n; i++) if (values[i]! >= low && values[i]! < upper) batch.push(i);
      batch.sort((a, b) => values[b]! - values[a]! || parts[a]! - parts[b]! || docs[a]! - docs[b]!);
      upper = low;
      taken += batch.length;
      at = 0;
    }
    const top = batch[at++]!;
    return [parts[top]!, docs[top]!, values[top]!];
  };
}

/** The value that would sit at `index` were `values` sorted ascending (quickselect: `values` is reordered). */
function _selectAscending(values: Float64Array, index: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (index <= j) high = j;
    else if (index >= i) low = i;
    else return values[index]!;
  }
  return values[index]!;
}
