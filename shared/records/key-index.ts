const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Characters hashed from each end of a long identity (`sampledHash`). */
const SAMPLED_END = 8;

/**
 * FNV-1a over every code unit of an identity: ids that differ anywhere spread over the table.
 * Two ids can still share a hash (32 bits), which is why a lookup also compares the ids.
 */
function fullHash(key: string): number {
  let hash = FNV_OFFSET;
  for (let index = 0; index < key.length; index += 1) {
    hash = Math.imul(hash ^ key.charCodeAt(index), FNV_PRIME);
  }
  return hash >>> 0;
}

/**
 * FNV-1a over an identity's length and its first and last `SAMPLED_END` characters: a call id
 * (a UUID) is random at both ends, so this spreads as well as the full hash for a third of the
 * work. Ids that differ only in their middle all meet, which `KeyIndex` notices and then
 * hashes every character instead.
 */
export function sampledHash(key: string): number {
  const length = key.length;
  if (length <= SAMPLED_END * 2) return fullHash(key);
  let hash = Math.imul(FNV_OFFSET ^ length, FNV_PRIME);
  for (let index = 0; index < SAMPLED_END; index += 1) {
    hash = Math.imul(hash ^ key.charCodeAt(index), FNV_PRIME);
  }
  for (let index = length - SAMPLED_END; index < length; index += 1) {
    hash = Math.imul(hash ^ key.charCodeAt(index), FNV_PRIME);
  }
  return hash >>> 0;
}

/** Slots an insertion may probe before the index gives up on sampled hashes. */
const MAX_PROBES = 64;

/**
 * The rows of a batch by identity: an open-addressing table of row numbers (typed arrays, at
 * least twice the rows' size) with the rows of one identity chained. One hash of each id and
 * a string comparison only where two hashes meet: no Map of 20,000 call ids built and
 * collected every poll. Same answers as a Map of identities to rows (property-tested).
 */
export class KeyIndex {
  readonly #keys: readonly string[];
  readonly #hash: (key: string) => number;
  readonly #hashes: Uint32Array;
  /** Per slot, the first row of an identity, plus 1; 0 is an empty slot. */
  readonly #table: Int32Array;
  /** Per row, the next row of its identity, plus 1; 0 ends the chain. */
  readonly #next: Int32Array;
  #repeats: Uint8Array | undefined;

  private constructor(
    keys: readonly string[],
    hash: (key: string) => number,
    hashes: Uint32Array = new Uint32Array(keys.length),
  ) {
    let size = 16;
    while (size < keys.length * 2) size *= 2;
    this.#keys = keys;
    this.#hash = hash;
    this.#hashes = hashes;
    this.#table = new Int32Array(size);
    this.#next = new Int32Array(keys.length);
  }

  /**
   * The index of `keys` (row `i` has identity `keys[i]`): hashed by their ends, or by every
   * character when ids alike at both ends made an insertion probe more than `MAX_PROBES` slots.
   * `hashes`, when given, are the keys' `sampledHash`es, taken where each key was read: a
   * poll's ids lie scattered among its rows, and hashing them here again costs a cache miss
   * each (about three times the whole fill).
   */
  static of(keys: readonly string[], hashes?: Uint32Array): KeyIndex {
    const sampled = new KeyIndex(keys, sampledHash, hashes);
    if (sampled.#fill(MAX_PROBES, hashes !== undefined)) return sampled;
    const full = new KeyIndex(keys, fullHash);
    full.#fill(Number.POSITIVE_INFINITY);
    return full;
  }

  /**
   * Per row, 1 when its identity is on another row too (an inbound call ringing several
   * agents); `undefined` when no identity repeats.
   */
  get repeats(): Uint8Array | undefined {
    return this.#repeats;
  }

  /** The rows of identity `key`, in order (none when no row has it). */
  rowsOf(key: string): number[] {
    const rows: number[] = [];
    const slot = this.#slotOf(key, this.#hash(key), Number.POSITIVE_INFINITY);
    let entry = this.#table[slot] as number;
    while (entry !== 0) {
      rows.push(entry - 1);
      entry = this.#next[entry - 1] as number;
    }
    return rows;
  }

  /** Every row into the table; false when an insertion probed more than `maxProbes` slots. */
  #fill(maxProbes: number, hashed = false): boolean {
    const keys = this.#keys;
    const length = keys.length;
    // The last row of each identity's chain, plus 1, indexed by its first row.
    const last = new Int32Array(length);
    for (let row = 0; row < length; row += 1) {
      const key = keys[row] as string;
      let hash: number;
      if (hashed) hash = this.#hashes[row] as number;
      else {
        hash = this.#hash(key);
        this.#hashes[row] = hash;
      }
      const slot = this.#slotOf(key, hash, maxProbes);
      if (slot === -1) return false;
      const first = (this.#table[slot] as number) - 1;
      if (first === -1) {
        this.#table[slot] = row + 1;
        last[row] = row + 1;
        continue;
      }
      this.#next[(last[first] as number) - 1] = row + 1;
      last[first] = row + 1;
      this.#repeats ??= new Uint8Array(length);
      this.#repeats[first] = 1;
      this.#repeats[row] = 1;
    }
    return true;
  }

  /**
   * The slot holding `key`'s first row, or the empty slot where it would go; -1 past
   * `maxProbes` slots.
   */
  #slotOf(key: string, hash: number, maxProbes: number): number {
    const mask = this.#table.length - 1;
    let slot = hash & mask;
    for (let probes = 0; probes <= maxProbes; probes += 1) {
      const entry = this.#table[slot] as number;
      if (entry === 0) return slot;
      const row = entry - 1;
      if (this.#hashes[row] === hash && this.#keys[row] === key) return slot;
      slot = (slot + 1) & mask;
    }
    return -1;
  }
}
