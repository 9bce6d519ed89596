import { describe, expect, it } from 'vitest';
import { collectPages, readmeRewrites, relativeLinks, resolveLink } from '../.vitepress/pages.js';
import { buildSidebar, pageUrl } from '../.vitepress/sidebar.js';
import { repoRoot } from './harness.js';

function setup() {
  const pages = collectPages(repoRoot);
  return { pages, rewrites: readmeRewrites(pages) };
}

describe("the docs site's pages", () => {
  it('are README.md, every docs/ page and the Markdown files they link to, nothing else', () => {
    const { pages } = setup();
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/index.md', 'docs/errors/YAML_SYNTAX.md', 'examples/ci/README.md', 'site/README.md']));
    expect(pages.filter((page) => page.includes('node_modules') || page.startsWith('notes/'))).toEqual([]);
  });

  it('serve a README.md as its directory index, keeping its relative links valid', () => {
    const { rewrites } = setup();
    expect(rewrites['README.md']).toBe('index.md');
    expect(rewrites['examples/ci/README.md']).toBe('examples/ci/index.md');
    expect(pageUrl('examples/ci/README.md', rewrites)).toBe('/examples/ci/');
    expect(pageUrl('docs/concepts/rules.md', rewrites)).toBe('/docs/concepts/rules.html');
  });

  it('reads links outside code only, and resolves them inside the repository', () => {
    const links = relativeLinks('See [a](a.md#x), ![chart](c.svg), [web](https://x.dev) and `[no](b.md)`.\n```md\n[no](c.md)\n```\n');
    expect(links).toEqual(['a.md', 'c.svg']);
    expect(resolveLink('docs/concepts/rules.md', '../kubernetes.md')).toBe('docs/kubernetes.md');
    expect(resolveLink('docs/index.md', '../../outside.md')).toBeUndefined();
  });

  it("put every docs/ page in the sidebar, in docs/index.md's sections first", () => {
    const { pages, rewrites } = setup();
    const sidebar = buildSidebar(repoRoot, pages);
    const links = JSON.stringify(sidebar);
    for (const page of pages.filter((p) => p.startsWith('docs/'))) expect(links, page).toContain(`"${pageUrl(page, rewrites)}"`);
    expect(sidebar.map((group) => group.text)).toEqual(expect.arrayContaining(['Concepts (<code>@verdict/core</code>)', 'Error codes']));
  });
});
