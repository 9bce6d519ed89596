import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPages, pageTitle, readmeRewrites } from '../.vitepress/pages.js';
import { pageUrl } from '../.vitepress/sidebar.js';
import { browserSession, nextRun, repoRoot } from './harness.js';

/** One site and one browser for the file (the site is built once per run, see harness.ts); every test opens its own page. */
const session = browserSession();
// Building the site may take minutes on a busy machine: done before the tests, so any one of them can run alone.
beforeAll(async () => {
  await session.get();
}, 600_000);
afterAll(session.close);

function setup() {
  const pages = collectPages(repoRoot);
  const rewrites = readmeRewrites(pages);
  return { pages, urlOf: (page: string) => pageUrl(page, rewrites).slice(1) };
}

/** Same-origin links of an HTML text: `href` values resolved against the page URL. */
function linksOf(html: string, base: string, origin: string): URL[] {
  return [...html.matchAll(/<a\s[^>]*href="([^"]+)"/g)]
    .map((match) => new URL((match[1] ?? '').replace(/&amp;/g, '&'), base))
    .filter((url) => url.origin === origin);
}

describe('the docs site', () => {
  it('renders every page of docs/ and the pages they link to, each under its own title, without errors', { timeout: 600_000 }, async () => {
    const { pages, urlOf } = setup();
    const { site, browser } = await session.get();
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/index.md', 'docs/concepts/parameter-selection.md', 'docs/errors/POLICY_LOAD.md', 'docs/performance.md']));
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
    });
    for (const source of pages) {
      const response = await page.goto(site.url + urlOf(source));
      expect(response?.status(), source).toBe(200);
      const heading = (await page.locator('main h1').first().textContent())?.replace(/\u200b/g, '').trim();
      expect(heading, source).toBe(pageTitle(repoRoot, source));
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it('resolves every link between pages, #fragments included', { timeout: 120_000 }, async () => {
    const { pages, urlOf } = setup();
    const { site } = await session.get();
    const origin = new URL(site.url).origin;
    const html = new Map<string, string>();
    const get = async (url: URL) => {
      const key = url.pathname;
      if (!html.has(key)) {
        const response = await fetch(new URL(key, origin));
        html.set(key, response.ok ? await response.text() : `HTTP ${response.status}`);
      }
      return html.get(key) as string;
    };
    const broken: string[] = [];
    for (const source of pages) {
      const url = new URL(urlOf(source), site.url);
      for (const link of linksOf(await get(url), url.href, origin)) {
        const target = await get(link);
        if (target.startsWith('HTTP ')) broken.push(`${source}: ${link.pathname} (${target})`);
        else if (link.hash && link.pathname.endsWith('.html') && !target.includes(`id="${decodeURIComponent(link.hash.slice(1))}"`)) {
          broken.push(`${source}: ${link.pathname}${link.hash} (no such anchor)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds pages with the search box', async () => {
    const { site, browser } = await session.get();
    const page = await browser.newPage();
    await page.goto(`${site.url}docs/`);
    // The button works once Vue has hydrated the page.
    await page.waitForFunction(() => '__vue_app__' in (document.querySelector('#app') ?? {}));
    await page.locator('.VPNavBarSearch button').click();
    // fill() waits for the search input: typed keys are lost while the search box is still mounting.
    await page.locator('.VPLocalSearchBox input').fill('onParameterSelectionNoMatch');
    const results = page.locator('.VPLocalSearchBox .results a');
    await results.first().waitFor();
    expect(await results.evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual(expect.arrayContaining([expect.stringContaining('parameter-selection.html')]));
    await page.close();
  });

  it("renders the README's sections as sections on the home page, none of them inside a code block", async () => {
    const { site, browser } = await session.get();
    const page = await browser.newPage();
    await page.goto(site.url);
    await page.locator('main h1').first().waitFor();
    const sections = [...readFileSync(join(repoRoot, 'README.md'), 'utf8').matchAll(/^## (.+)$/gm)].map((m) => m[1]!.replace(/`/g, ''));
    expect(sections).toContain('Contributing, security, licence');
    expect(await page.locator('main h2').evaluateAll((hs) => hs.map((h) => (h.textContent ?? '').replace(/[\u200b#]/g, '').trim()))).toEqual(sections);
    expect(await page.locator('main pre').evaluateAll((pres) => pres.filter((p) => /^## /m.test(p.textContent ?? '')).length)).toBe(0);
    await page.close();
  });

  it('shows the performance chart and opens the playground from the navigation', async () => {
    const { site, browser } = await session.get();
    const page = await browser.newPage();
    await page.goto(`${site.url}docs/performance.html`);
    const chart = page.locator('main img[src*="performance-scale"]').first();
    await chart.waitFor();
    expect(await chart.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)).toBe(true);
    await page.locator('.VPNavBar a', { hasText: 'Playground' }).first().click();
    await page.waitForURL(/\/playground\/$/);
    await nextRun(page, 0);
    expect(await page.getByTestId('verdict').innerText()).toBe('Denied');
    await page.close();
  });
});
