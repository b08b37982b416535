/**
 * Whether `JSON.stringify(a) === JSON.stringify(b)`, without writing either: values are
 * compared as JSON writes them (keys in order; `undefined`, functions and symbols left out of
 * objects and written `null` in arrays; non-finite numbers `null`; `toJSON` honoured), and the
 * walk stops at the first difference. Two 10,000-instance states of a steady payments poll
 * differ early (each holding instance's `lastSeenAt`): comparing their texts wrote 6 MB and
 * cost tens of milliseconds first.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return sameJson(written(a), written(b));
}

/** What JSON writes for a value; `undefined` for one it leaves out. */
function written(value: unknown): unknown {
  let v = value;
  if (
    v !== null &&
    typeof v === 'object' &&
    typeof (v as { toJSON?: unknown }).toJSON === 'function'
  ) {
    v = (v as { toJSON(): unknown }).toJSON();
  }
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'function':
    case 'symbol':
    case 'undefined':
      return undefined;
    default:
      return v instanceof Number || v instanceof String || v instanceof Boolean ? v.valueOf() : v;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return a !== undefined || b === undefined;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index += 1) {
      if (!sameJson(written(a[index]) ?? null, written(b[index]) ?? null)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  let i = nextMember(left, leftKeys, 0);
  let j = nextMember(right, rightKeys, 0);
  while (i < leftKeys.length && j < rightKeys.length) {
    const leftKey = leftKeys[i] as string;
    const rightKey = rightKeys[j] as string;
    if (leftKey !== rightKey || !sameJson(written(left[leftKey]), written(right[rightKey]))) {
      return false;
    }
    i = nextMember(left, leftKeys, i + 1);
    j = nextMember(right, rightKeys, j + 1);
  }
  return i === leftKeys.length && j === rightKeys.length;
}

/** The first of `keys` from `from` whose member JSON writes (not `undefined`, a function). */
function nextMember(
  object: Record<string, unknown>,
  keys: readonly string[],
  from: number,
): number {
  let at = from;
  while (at < keys.length && written(object[keys[at] as string]) === undefined) at += 1;
  return at;
}
