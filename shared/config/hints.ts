/**
 * Edit distance (optimal string alignment: insertions, deletions, substitutions and swaps of
 * two neighbours each cost 1). Small inputs only: it is for key names.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    const row = d[i] as number[];
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** Case, `_` and `-` are the usual slips between `groupBy`, `group_by` and `groupby`. */
function normalise(word: string): string {
  return word.toLowerCase().replace(/[_-]/g, '');
}

/**
 * The candidate closest to `word`, when it is close enough to be what the user meant: at most
 * 1 edit for words up to 4 characters, 2 up to 8, 3 beyond. `undefined` when nothing is close.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const target = normalise(word);
  const limit = target.length <= 4 ? 1 : target.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const distance = editDistance(target, normalise(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** `'; did you mean "groupBy"?'` when a candidate is close, `''` otherwise. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closest(word, candidates);
  return match === undefined ? '' : `; did you mean "${match}"?`;
}
