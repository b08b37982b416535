import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Folders that hold no documentation of ours: dependencies, build output, local state, VCS. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'cdk.out']);

/** A link in a Markdown file, with the line it is on (1-based) for the failure message. */
export interface MarkdownLink {
  readonly target: string;
  readonly line: number;
}

/** A relative link that leads nowhere: the file it is in, where, and why. */
export interface BrokenLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly reason: string;
}

/**
 * Every `.md` file under `root`, relative to it, sorted. Dot-folders (`.git`, `.telealert`,
 * `.ci` with its downloaded Node) and the folders in `SKIPPED_FOLDERS` are not ours to check.
 */
export function markdownFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && !SKIPPED_FOLDERS.has(entry.name)) {
          walk(join(dir, entry.name));
        }
      } else if (entry.name.endsWith('.md')) {
        found.push(relative(root, join(dir, entry.name)));
      }
    }
  };
  walk(root);
  return found.sort();
}

/** The lines of `text` that Markdown renders as prose: fenced code blocks are left out (blank). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (opener !== undefined) {
        fence = opener;
        return '';
      }
      return line;
    }
    if (opener?.startsWith(fence)) fence = undefined;
    return '';
  });
}

/** `line` without its inline code spans, where a `[x](y)` is text, not a link. */
function withoutInlineCode(line: string): string {
  return line.replace(/(`+)[\s\S]*?\1/g, '');
}

/** The inline links and images of a Markdown text (`[text](target)`), outside code. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  proseLines(text).forEach((line, index) => {
    for (const match of withoutInlineCode(line).matchAll(
      /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?[^)]*\)/g,
    )) {
      links.push({ target: match[1] as string, line: index + 1 });
    }
  });
  return links;
}

/**
 * The anchor GitHub gives a heading's text: markup dropped, lower case, every character that
 * is not a letter, a digit, a space, `-` or `_` removed, spaces turned into hyphens.
 */
export function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings, a repeated one suffixed `-1`, `-2`, ... as GitHub does. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${times}`);
  }
  return anchors;
}

/** Whether a link leaves the repository (a URL with a scheme, or protocol-relative). */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

/**
 * The relative links of `file` (relative to `root`) whose file does not exist, or whose
 * `#anchor` names no heading of the Markdown file it points to (or of `file` itself).
 */
export function brokenLinks(root: string, file: string): BrokenLink[] {
  const text = readFileSync(join(root, file), 'utf8');
  const broken: BrokenLink[] = [];
  for (const { target, line } of markdownLinks(text)) {
    if (isExternal(target)) continue;
    const hashAt = target.indexOf('#');
    const path = decodeURIComponent(hashAt === -1 ? target : target.slice(0, hashAt));
    const anchor = hashAt === -1 ? undefined : decodeURIComponent(target.slice(hashAt + 1));
    const resolved = path === '' ? join(root, file) : resolve(join(root, dirname(file)), path);
    if (!existsSync(resolved)) {
      broken.push({ file, line, target, reason: `no such file: ${relative(root, resolved)}` });
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
      broken.push({ file, line, target, reason: 'an anchor on a file that is not Markdown' });
      continue;
    }
    if (!headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)) {
      broken.push({
        file,
        line,
        target,
        reason: `no heading with anchor #${anchor} in ${relative(root, resolved)}`,
      });
    }
  }
  return broken;
}
