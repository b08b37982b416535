import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

/**
 * The repository's own import graph, read from the source text: enough to hold the rooms' walls
 * (docs/architecture.md) without a dependency. Static `import`/`export ... from` statements start
 * a line (Biome formats them so); `import('...')` and `require('...')` are found anywhere outside
 * a comment. A specifier built at run time is not seen, which is why the code avoids them.
 */

/** One import of one file: `to` is the repository path it resolves to, for a relative one. */
export interface ImportSite {
  readonly file: string;
  readonly line: number;
  readonly specifier: string;
  readonly to?: string;
}

export interface ImportGraph {
  /** Repository paths (`/`-separated) of every source file read. */
  readonly files: readonly string[];
  readonly imports: readonly ImportSite[];
}

const SOURCE = /\.(ts|js|mjs|cjs)$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'cdk.out']);

const STATIC = /^(?:import\s*|(?:import|export)\b[^'"`;(]*?\bfrom\s*)(['"])([^'"\n]+)\1/gm;
const CALL = /\b(?:import|require)\(\s*(['"])([^'"\n]+)\1\s*\)/g;

/** The source files under `root`, skipping dependencies, build output and dot-folders. */
export function sourceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        if (!name.startsWith('.') && !SKIPPED_FOLDERS.has(name)) walk(path);
      } else if (SOURCE.test(name) && !name.endsWith('.d.ts')) {
        found.push(relative(root, path).split(sep).join('/'));
      }
    }
  };
  walk(root);
  return found;
}

/**
 * The specifiers a source text imports, with their lines. Comments are blanked first (kept as
 * spaces and newlines so lines still count) so a specifier a comment mentions is not an import.
 */
export function importSpecifiers(text: string): { specifier: string; line: number }[] {
  const { code, mask } = blankComments(text);
  const found: { specifier: string; line: number; at: number }[] = [];
  for (const pattern of [STATIC, CALL]) {
    for (const match of code.matchAll(pattern)) {
      // `import` written inside a string (a generated module, a child's script) is text, not code.
      if (mask[match.index] !== code[match.index]) continue;
      const specifier = match[2] as string;
      const at = match.index + match[0].lastIndexOf(specifier);
      if (!found.some((seen) => seen.at === at)) {
        found.push({ specifier, at, line: lineAt(code, at) });
      }
    }
  }
  return found.sort((a, b) => a.at - b.at).map(({ specifier, line }) => ({ specifier, line }));
}

/** Reads every source file under `root` and resolves its relative imports to repository paths. */
export function importGraph(root: string): ImportGraph {
  const files = sourceFiles(root);
  const imports: ImportSite[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const { specifier, line } of importSpecifiers(text)) {
      const to = specifier.startsWith('.') ? resolveRelative(root, file, specifier) : undefined;
      imports.push(to === undefined ? { file, line, specifier } : { file, line, specifier, to });
    }
  }
  return { files, imports };
}

/** The package a bare specifier names (`@aws-sdk/client-sns/x` -> `@aws-sdk/client-sns`). */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) {
    return undefined;
  }
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** A folder that reaches itself through other folders: each step names one import that makes it. */
export interface FolderCircle {
  readonly folders: readonly string[];
  readonly steps: readonly { from: string; to: string; site: ImportSite }[];
}

/**
 * Every circle between folders (a folder and its sub-folder are two folders): per strongly
 * connected group of folders, the shortest loop through its first folder, and how many folders
 * the group holds. Imports within one folder are free to go both ways.
 */
export function folderCircles(graph: ImportGraph): FolderCircle[] {
  const edges = new Map<string, Map<string, ImportSite>>();
  for (const site of graph.imports) {
    if (site.to === undefined) continue;
    const from = posix.dirname(site.file);
    const to = posix.dirname(site.to);
    if (from === to) continue;
    const out = edges.get(from) ?? new Map<string, ImportSite>();
    if (!out.has(to)) out.set(to, site);
    edges.set(from, out);
  }
  return stronglyConnected(edges)
    .filter((group) => group.length > 1)
    .map((group) => shortestLoop(group, edges));
}

/** A circle as people read it: `a -> b -> a` and, per step, the import that makes it. */
export function describeCircle(circle: FolderCircle): string {
  const loop = [...circle.steps.map((step) => step.from), circle.steps[0]?.from].join(' -> ');
  const why = circle.steps.map(
    ({ site }) => `  ${site.file}:${site.line} imports '${site.specifier}'`,
  );
  const group =
    circle.folders.length > circle.steps.length
      ? [`  (one knot of ${circle.folders.length} folders: ${circle.folders.join(', ')})`]
      : [];
  return [loop, ...why, ...group].join('\n');
}

function resolveRelative(root: string, file: string, specifier: string): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(file), specifier));
  const stem = base.replace(/\.(js|mjs|cjs)$/, '');
  const candidates = [base, `${stem}.ts`, `${base}.ts`, `${base}.js`, `${base}/index.ts`];
  return candidates.find(
    (path) => existsSync(join(root, path)) && statSync(join(root, path)).isFile(),
  );
}

/**
 * `code`: the text with comments blanked; `mask`: the same with string contents blanked too.
 * Both keep every newline and length, so offsets and lines agree with the text.
 */
function blankComments(text: string): { code: string; mask: string } {
  let code = '';
  let mask = '';
  let i = 0;
  const blank = (part: string): string => part.replace(/[^\n]/g, ' ');
  while (i < text.length) {
    const char = text[i];
    const next = text[i + 1];
    let stop = i + 1;
    if (char === '/' && (next === '/' || next === '*')) {
      const end = next === '/' ? text.indexOf('\n', i) : text.indexOf('*/', i + 2);
      stop = end === -1 ? text.length : next === '/' ? end : end + 2;
      code += blank(text.slice(i, stop));
      mask += blank(text.slice(i, stop));
    } else if (char === "'" || char === '"' || char === '`') {
      stop = stringEnd(text, i);
      const inside = text.slice(i + 1, Math.max(i + 1, stop - 1));
      code += text.slice(i, stop);
      mask += `${char}${blank(inside)}${stop - i > 1 ? text[stop - 1] : ''}`;
    } else {
      code += char;
      mask += char;
    }
    i = stop;
  }
  return { code, mask: mask.slice(0, code.length) };
}

/** Past the closing quote of the string starting at `start`, past any `${...}` holes in it. */
function stringEnd(text: string, start: number): number {
  const quote = text[start];
  let i = start + 1;
  while (i < text.length && text[i] !== quote) {
    if (text[i] === '\\') i += 2;
    else if (quote !== '`' && text[i] === '\n') return i;
    else if (quote === '`' && text[i] === '$' && text[i + 1] === '{') i = holeEnd(text, i + 2);
    else i += 1;
  }
  return i + 1;
}

/** Past the `}` closing the template hole whose code starts at `start`. */
function holeEnd(text: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < text.length) {
    const char = text[i];
    if (char === "'" || char === '"' || char === '`') {
      i = stringEnd(text, i);
      continue;
    }
    if (char === '{') depth += 1;
    if (char === '}') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  return i;
}

function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i += 1) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}

function stronglyConnected(edges: Map<string, Map<string, ImportSite>>): string[][] {
  const nodes = [
    ...new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]),
  ].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      groups.push(group.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return groups.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

function shortestLoop(group: string[], edges: Map<string, Map<string, ImportSite>>): FolderCircle {
  const start = group[0] as string;
  const inGroup = new Set(group);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  let last: string | undefined;
  while (queue.length > 0 && last === undefined) {
    const node = queue.shift() as string;
    for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) {
      if (!inGroup.has(next)) continue;
      if (next === start) {
        last = node;
        break;
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  const path = [start];
  for (let node = last as string; node !== start; node = cameFrom.get(node) as string) {
    path.splice(1, 0, node);
  }
  const steps = path.map((from, i) => {
    const to = path[(i + 1) % path.length] as string;
    return { from, to, site: edges.get(from)?.get(to) as ImportSite };
  });
  return { folders: group, steps };
}
