/**
 * The docs site: VitePress over the repository's own Markdown (README.md,
 * docs/ and the READMEs they link to), with nothing copied: the page list,
 * the sidebar and the README → index rewrites are computed at every build.
 * The playground is a separate Vite page (site/playground) written into the
 * same output directory by scripts/build.ts.
 */
import { dirname, posix, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { slug as githubSlug } from 'github-slugger';
import { defineConfig } from 'vitepress';
import { writeLinkedSources } from './listings.js';
import { collectPages, excludedMarkdown, linkedSources, readmeRewrites, resolveLink } from './pages.js';
import { buildSidebar } from './sidebar.js';
import { FAVICON } from './brand.js';

const vueDir = dirname(createRequire(import.meta.url).resolve('vue/package.json'));
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pages = collectPages(root);
const rewrites = readmeRewrites(pages);
const sources = linkedSources(root, pages);

/** Output directory: `site/dist` unless the build script says otherwise (tests build into a temporary directory). */
export const outDir = process.env['VERDICT_SITE_OUT'] ?? resolve(root, 'site/dist');

/**
 * For a relative link of `page` to a README.md page or its directory: the link to the index it is served as;
 * for a link to a directory without a README: its listing page; for a link to a linked source file: the link as it is.
 */
function servedPage(page: string, href: string): string | undefined {
  if (/^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(href)) return undefined;
  const [path = '', fragment] = href.split('#', 2);
  const target = resolveLink(page, decodeURIComponent(path));
  if (target === undefined) return undefined;
  if (sources.directories.includes(target)) return `./${posix.relative(posix.dirname(page), posix.join(target, 'index.html'))}`;
  // A linked file (template.yaml, LICENSE, ...) is copied as it is: its link stays, whatever its extension.
  if (sources.files.includes(target)) return href;
  const readme = [target, posix.join(target, 'README.md')].find((candidate) => rewrites[candidate]);
  if (readme === undefined) return undefined;
  const relative = posix.relative(posix.dirname(page), rewrites[readme] as string) || 'index.md';
  return `./${relative}${fragment === undefined ? '' : `#${fragment}`}`;
}

/** True for a link to a generated directory listing (written by buildEnd, unknown to VitePress). */
function isListing(file: string, url: string): boolean {
  const page = posix.relative(root, file.split('\\').join('/'));
  const target = resolveLink(page, url.replace(/\/index(\.html)?$/, ''));
  return target !== undefined && sources.directories.includes(target);
}

export default defineConfig({
  title: 'verdict',
  description: 'An embeddable policy-evaluation library for TypeScript: defaults and ordered overrides in one policy, decisions that explain themselves.',
  srcDir: root,
  // VitePress 2 also reads any config.{js,ts} under srcDir as a per-directory config: none of the repository's are.
  srcExclude: [...excludedMarkdown(root, pages), '**/node_modules/**', '**/config.{js,mjs,ts,mts}'],
  rewrites,
  outDir,
  cacheDir: resolve(root, 'site/.vitepress/cache'),
  cleanUrls: false,
  lastUpdated: false,
  // Fail the build on a link to a page that does not exist (the browser test checks the rest).
  ignoreDeadLinks: [(url, file) => isListing(file, url)],
  vite: {
    // Pages live at the repository root, where Vue is not installed: resolve it from the site package.
    resolve: { alias: [{ find: /^vue(?=\/|$)/, replacement: vueDir }] },
    // The site's own sources live outside srcDir's usual places.
    server: { fs: { allow: [root] } },
  },
  head: [['link', { rel: 'icon', href: FAVICON }]],
  markdown: {
    // GitHub's heading ids, so that `page.md#fiats-redis-layout` works on GitHub and on the site alike.
    anchor: { slugify: githubSlug },
    config(md) {
      // The pages are plain Markdown (they render on GitHub too), so `{{template}}` in prose or
      // inline code is text, never a Vue interpolation (VitePress already protects fenced code).
      const code = md.renderer.rules['code_inline'];
      md.renderer.rules['code_inline'] = (tokens, idx, options, env, self) => {
        tokens[idx]?.attrSet('v-pre', '');
        return code ? code(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
      };
      const text = md.renderer.rules['text'];
      md.renderer.rules['text'] = (tokens, idx, options, env, self) =>
        (text ? text(tokens, idx, options, env, self) : md.utils.escapeHtml(tokens[idx]?.content ?? '')).replace(/\{\{/g, '<span v-pre>{{</span>');
      // A link to a README.md (or to its directory) points at the index it is served as.
      const link = md.renderer.rules['link_open'];
      md.renderer.rules['link_open'] = (tokens, idx, options, env: { relativePath?: string }, self) => {
        const token = tokens[idx];
        const href = token?.attrGet('href');
        const served = href && env.relativePath ? servedPage(env.relativePath, href) : undefined;
        if (token && served !== undefined) {
          token.attrSet('href', served);
          // Listing pages and source files are not VitePress pages: the browser loads them, the client router
          // does not (a target also keeps VitePress from adding `.html` to a file without an extension).
          if (served === href || served.endsWith('/index.html')) token.attrSet('target', '_self');
        }
        return link ? link(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
      };
    },
  },
  themeConfig: {
    nav: [
      { text: 'Docs', link: '/docs/' },
      { text: 'Playground', link: '/playground/', target: '_self' },
      { text: 'Errors', link: '/docs/errors/' },
    ],
    sidebar: buildSidebar(root, pages),
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
  buildEnd(site) {
    writeLinkedSources(root, site.outDir, sources, site.site.base);
  },
});
