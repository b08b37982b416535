/** Alert keys in the order `settleRule` walks them. */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The first `capacity` in key order of the distinct keys offered one by one: a heap, the last
 * key kept on top, so a key that comes after every one kept costs one comparison.
 */
export class FirstKeys {
  readonly #heap: string[] = [];

  constructor(readonly capacity: number) {}

  /**
   * Offers `key`, never offered before; returns the key this leaves out: `key` itself, or the
   * one kept until now that it pushes out, or `undefined` while there is room.
   */
  offer(key: string): string | undefined {
    const heap = this.#heap;
    if (heap.length < this.capacity) {
      this.#up(key);
      return undefined;
    }
    const last = heap[0];
    if (last === undefined || compareKeys(key, last) > 0) return key;
    this.#down(key);
    return last;
  }

  /** Adds `key` at the bottom and moves it up past the keys before it. */
  #up(key: string): void {
    const heap = this.#heap;
    let at = heap.length;
    heap.push(key);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      const above = heap[parent] as string;
      if (compareKeys(above, key) >= 0) break;
      heap[at] = above;
      at = parent;
    }
    heap[at] = key;
  }

  /** Puts `key` in the top's place and moves it down past the keys after it. */
  #down(key: string): void {
    const heap = this.#heap;
    const length = heap.length;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= length) break;
      const right = child + 1;
      if (right < length && compareKeys(heap[right] as string, heap[child] as string) > 0) {
        child = right;
      }
      const below = heap[child] as string;
      if (compareKeys(below, key) <= 0) break;
      heap[at] = below;
      at = child;
    }
    heap[at] = key;
  }
}
