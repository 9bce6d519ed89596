/**
 * The sidebar, derived from the pages at build time: one group per `## `
 * section of docs/index.md (its links, in order), the error-code pages, the
 * example READMEs, and any docs/ page the index does not link yet.
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { DefaultTheme } from 'vitepress';
import { pageTitle, readmeRewrites, relativeLinks, resolveLink } from './pages.js';

/** The URL of a page (repository-relative path, after README → index rewrites). */
export function pageUrl(page: string, rewrites: Record<string, string>): string {
  const served = rewrites[page] ?? page;
  return '/' + served.replace(/(^|\/)index\.md$/, '$1').replace(/\.md$/, '.html');
}

/** Sidebar text is HTML: escape it, and show `code` as code. */
function label(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** docs/index.md's `## ` sections with the pages each links to. */
function indexSections(root: string): Array<{ title: string; pages: string[] }> {
  const sections: Array<{ title: string; pages: string[] }> = [];
  for (const block of readFileSync(join(root, 'docs/index.md'), 'utf8').split(/^## /m).slice(1)) {
    const title = (block.split('\n')[0] ?? '').trim();
    const pages = relativeLinks(block)
      .map((link) => resolveLink('docs/index.md', link))
      .filter((page): page is string => page !== undefined && page.endsWith('.md'));
    sections.push({ title, pages: [...new Set(pages)] });
  }
  return sections;
}

export function buildSidebar(root: string, pages: readonly string[]): DefaultTheme.SidebarItem[] {
  const rewrites = readmeRewrites(pages);
  const item = (page: string, text = pageTitle(root, page)): DefaultTheme.SidebarItem => ({ text: label(text), link: pageUrl(page, rewrites) });
  const placed = new Set<string>(['docs/index.md']);
  const groups: DefaultTheme.SidebarItem[] = [{ text: 'Introduction', items: [item('docs/index.md', 'Overview')] }];
  for (const section of indexSections(root)) {
    const inSection = section.pages.filter((page) => pages.includes(page) && !placed.has(page) && !page.startsWith('docs/errors/'));
    inSection.forEach((page) => placed.add(page));
    if (inSection.length > 0) groups.push({ text: label(section.title), items: inSection.map((page) => item(page)) });
  }
  const errors = pages.filter((page) => page.startsWith('docs/errors/'));
  errors.forEach((page) => placed.add(page));
  const rest = pages.filter((page) => page.startsWith('docs/') && !placed.has(page));
  if (rest.length > 0) groups.push({ text: 'More', items: rest.map((page) => item(page)) });
  if (errors.length > 0) {
    const index = errors.filter((page) => posix.basename(page) === 'index.md');
    const codes = errors.filter((page) => posix.basename(page) !== 'index.md');
    groups.push({ text: 'Error codes', collapsed: true, items: [...index.map((page) => item(page, 'All error codes')), ...codes.map((page) => item(page))] });
  }
  const examples = pages.filter((page) => page.startsWith('examples/'));
  if (examples.length > 0) groups.push({ text: 'Examples', collapsed: true, items: examples.map((page) => item(page)) });
  return groups;
}
