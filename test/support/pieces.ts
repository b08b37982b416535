/**
 * `whole` (a text or a list) cut at `cuts` into consecutive pieces, some possibly empty, as a
 * stream hands it over: positions are taken modulo `whole.length + 1`, in any order, repeats
 * once.
 */
export function cutAt<T extends { readonly length: number; slice(start: number, end?: number): T }>(
  whole: T,
  cuts: readonly number[],
): T[] {
  const points = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
  const pieces: T[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(whole.slice(from, point));
    from = point;
  }
  pieces.push(whole.slice(from));
  return pieces;
}
