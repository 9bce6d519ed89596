/**
 * Which Markdown files of the repository are pages of the site, computed at
 * every build so that a page someone adds to docs/ is on the site without a
 * change here: the root README.md, every file under docs/, and every Markdown
 * file those link to (example READMEs, the bench README, ...), transitively.
 * Pages keep their repository paths (docs/concepts/rules.md is
 * /docs/concepts/rules.html), so relative links work unchanged; a README.md is
 * served as its directory's index.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';

/** Directories never scanned for pages. */
const SKIP = new Set(['node_modules', 'dist', 'coverage', 'results']);

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

/** Every `.md` file under `dir` (repository-relative, POSIX), skipping dependencies, build output and dot-directories. */
export function markdownFiles(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIP.has(entry.name)) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(root, full));
    else if (entry.isFile() && entry.name.endsWith('.md')) out.push(toPosix(relative(root, full)));
  }
  return out.sort();
}

/** Link targets of a Markdown text: inline links and images, without `#fragment` or `?query`; external and anchor-only links dropped. */
export function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  const out: string[] = [];
  for (const match of withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1] ?? '';
    if (target === '' || target.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
    const path = target.replace(/[#?].*$/, '');
    if (path !== '') out.push(decodeURIComponent(path));
  }
  return out;
}

/** Resolves a link of `fromPage` (repository-relative) to a repository-relative path, or undefined when it leaves the repository. */
export function resolveLink(fromPage: string, link: string): string | undefined {
  const joined = link.startsWith('/') ? posix.normalize(link.slice(1)) : posix.normalize(posix.join(posix.dirname(fromPage), link));
  return joined.startsWith('..') ? undefined : joined.replace(/\/$/, '');
}

/** The site's pages: README.md, docs/**, and Markdown files reachable from them by relative links. */
export function collectPages(root: string): string[] {
  const all = new Set(markdownFiles(root));
  const pages = new Set<string>();
  const queue = [...all].filter((file) => file === 'README.md' || file.startsWith('docs/'));
  while (queue.length > 0) {
    const page = queue.shift() as string;
    if (pages.has(page)) continue;
    pages.add(page);
    for (const link of relativeLinks(readFileSync(join(root, page), 'utf8'))) {
      const target = resolveLink(page, link);
      if (target === undefined) continue;
      const asDirectory = posix.join(target, 'README.md');
      if (all.has(target)) queue.push(target);
      else if (all.has(asDirectory)) queue.push(asDirectory);
    }
  }
  return [...pages].sort();
}

/** `dir/README.md` is served as `dir/index.md` (same directory, so its relative links still resolve) unless the directory has an index.md page. */
export function readmeRewrites(pages: readonly string[]): Record<string, string> {
  const rewrites: Record<string, string> = {};
  for (const page of pages) {
    if (posix.basename(page) !== 'README.md') continue;
    const index = posix.join(posix.dirname(page), 'index.md');
    if (!pages.includes(index)) rewrites[page] = index;
  }
  return rewrites;
}

/** Markdown files that are not pages: handed to VitePress as `srcExclude`. */
export function excludedMarkdown(root: string, pages: readonly string[]): string[] {
  const keep = new Set(pages);
  return markdownFiles(root).filter((file) => !keep.has(file));
}

/** What pages link to besides pages: files (a policy's `template.yaml`, ...) and directories without a README page. */
export interface LinkedSources {
  files: string[];
  directories: string[];
}

/** Files and directories (not pages, not images) that pages link to: the build copies them next to the pages so the links resolve. */
export function linkedSources(root: string, pages: readonly string[]): LinkedSources {
  const files = new Set<string>();
  const directories = new Set<string>();
  for (const page of pages) {
    for (const link of relativeLinks(readFileSync(join(root, page), 'utf8'))) {
      const target = resolveLink(page, link);
      if (target === undefined || target === '' || pages.includes(target) || pages.includes(posix.join(target, 'README.md'))) continue;
      const full = resolve(root, target);
      if (!existsSync(full)) continue;
      if (statSync(full).isDirectory()) directories.add(target);
      else if (!/\.(md|svg|png|jpe?g|gif|webp)$/i.test(target)) files.add(target);
    }
  }
  return { files: [...files].sort(), directories: [...directories].sort() };
}

/** Files under a linked directory, recursively (repository-relative), for its listing page. */
export function directoryFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIP.has(entry.name)) continue;
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...directoryFiles(root, path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

/** The first `# heading` of a page, without inline code marks; the file name when it has none. */
export function pageTitle(root: string, page: string): string {
  const heading = /^#\s+(.+)$/m.exec(readFileSync(join(root, page), 'utf8'));
  return heading?.[1]?.replace(/`/g, '').trim() ?? posix.basename(page, '.md');
}
