import type * as z from '../schema/zod';
import { type ConfigIssue, formatPath } from './errors';
import { didYouMean } from './hints';

/** Turns zod issues into rules-file issues: a path as the user writes it, a plain reason. */

type AnySchema = { readonly _zod: { readonly def: Record<string, unknown> } };

/** The keys an object schema accepts at `path`, for "did you mean" on an unknown key. */
function keysAt(schema: AnySchema, path: readonly PropertyKey[]): string[] {
  let current: AnySchema | undefined = schema;
  const next = (s: AnySchema | undefined, key?: PropertyKey): AnySchema | undefined => {
    let node = s;
    for (;;) {
      const def: Record<string, unknown> | undefined = node?._zod.def;
      if (!def) return undefined;
      if (['optional', 'default', 'prefault', 'nullable'].includes(def.type as string)) {
        node = def.innerType as AnySchema;
      } else if (def.type === 'pipe') node = def.in as AnySchema;
      else break;
    }
    if (key === undefined) return node;
    const def = node?._zod.def;
    if (def?.type === 'object') return (def.shape as Record<string, AnySchema>)[String(key)];
    if (def?.type === 'array') return def.element as AnySchema;
    if (def?.type === 'record') return def.valueType as AnySchema;
    return undefined;
  };
  for (const key of path) current = next(current, key);
  const def = next(current)?._zod.def;
  return def?.type === 'object' ? Object.keys(def.shape as object) : [];
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case 'too_small':
      if (issue.origin === 'array') return 'must not be empty';
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1
          ? 'must not be empty'
          : `must be at least ${String(issue.minimum)} characters`;
      }
      return `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${String(issue.maximum)} characters`;
      return `must be at most ${String(issue.maximum)}`;
    case 'invalid_value': {
      const values = issue.values.map(String).join(', ');
      return issue.input === undefined
        ? `is required: one of ${values}`
        : `must be one of ${values}`;
    }
    case 'invalid_union':
      return 'must be text or a number';
    default:
      return issue.message;
  }
}

/** Runs a schema, returning the value or every issue, with paths under `base`. */
export function check<S extends z.ZodMiniType>(
  schema: S,
  input: unknown,
  base: readonly PropertyKey[],
): { value?: z.output<S>; issues: ConfigIssue[] } {
  const result = schema.safeParse(input, { reportInput: true, jitless: true });
  if (result.success) return { value: result.data, issues: [] };
  const issues: ConfigIssue[] = [];
  for (const issue of result.error.issues) {
    const path = [...base, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(schema as unknown as AnySchema, issue.path);
      for (const key of issue.keys) {
        issues.push({
          path: formatPath([...path, key]),
          message: `unknown key${didYouMean(key, known)}`,
        });
      }
    } else issues.push({ path: formatPath(path), message: describe(issue) });
  }
  return { issues };
}

/**
 * `check`, and when it fails on keys the schema does not know (at any depth), the value read
 * without those keys: what cross-checks between fields need, so an unknown key does not hide
 * the other issues of its section (every issue is reported at once). The issues are `check`'s.
 */
export function checkSection<S extends z.ZodMiniType>(
  schema: S,
  input: unknown,
  base: readonly PropertyKey[],
): { value?: z.output<S>; issues: ConfigIssue[] } {
  const result = check(schema, input, base);
  if (result.value !== undefined) return result;
  const first = schema.safeParse(input, { jitless: true });
  if (first.success) return result;
  const unknown = first.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
  if (unknown.length === 0) return result;
  const trimmed: unknown = structuredClone(input);
  for (const issue of unknown) {
    const parent = issue.path.reduce<unknown>(
      (node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key],
      trimmed,
    );
    for (const key of issue.keys) delete (parent as Record<string, unknown>)[key];
  }
  const retry = schema.safeParse(trimmed, { jitless: true });
  return retry.success ? { value: retry.data, issues: result.issues } : result;
}
