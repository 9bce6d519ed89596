import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { pathToFileURL } from 'node:url';
import { browserSession, builtSite, nextRun, repoRoot, runs, screenshotPlayground } from './harness.js';

/** One site and one browser for the file (the site is built once per run, see harness.ts); every test opens its own page. */
const session = browserSession();
// Building the site may take minutes on a busy machine: done before the tests, so any one of them can run alone.
beforeAll(async () => {
  await session.get();
}, 600_000);
afterAll(session.close);

async function setup(hash = '') {
  const { site, browser } = await session.get();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${site.url}playground/${hash}`);
  await nextRun(page, 0);
  return { page, errors, url: `${site.url}playground/` };
}

/** Replaces an editor's text the way a paste does. */
async function replaceText(page: Page, editor: 'policies' | 'input' | 'settings', text: string): Promise<void> {
  const before = await runs(page);
  await page.locator(`#${editor} .cm-content`).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
  await nextRun(page, before);
}

const editorText = (page: Page, editor: string) => page.locator(`#${editor} .cm-content`).evaluate((el) => [...el.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\n'));
const verdict = (page: Page) => page.getByTestId('verdict').innerText();

describe('the playground', () => {
  it('opens on seed 003 on the webhook: a denial, and the trace shows which parameterSelection entry won', async () => {
    const { page, errors } = await setup();
    expect(await verdict(page)).toBe('Denied');
    expect(await page.getByTestId('violations').innerText()).toContain('at most 64Gi');
    const card = page.locator('[data-testid="policy-trace"][data-policy="memory-limit-enforcement"]');
    expect(await card.getByTestId('selection').innerText()).toMatch(/won: entry 1/);
    expect(await card.getByTestId('parameters').innerText()).toContain('"limit": "64Gi"');
    expect(await card.locator('table.rules').innerText()).toMatch(/container-memory-limit\s+validate\s+fail/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('works opened from the file system, as build:site prints its path (file://…/playground/index.html)', async () => {
    const { browser } = await session.get();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(pathToFileURL(join(await builtSite(), 'playground', 'index.html')).href);
    await nextRun(page, 0);
    expect(await verdict(page)).toBe('Denied');
    expect(await page.getByTestId('violations').innerText()).toContain('at most 64Gi');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('flips the decision when the input is edited, without sending a request', async () => {
    const { page } = await setup();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const input = await editorText(page, 'input');
    expect(input).toContain('memory: 80Gi');
    await replaceText(page, 'input', input.replace('memory: 80Gi', 'memory: 60Gi'));
    expect(await verdict(page)).toBe('Allowed');
    expect(await page.locator('[data-policy="memory-limit-enforcement"] table.rules').innerText()).toMatch(/container-memory-limit\s+validate\s+pass/);
    expect(requests).toEqual([]);
    await page.close();
  });

  it('shows the mutation patch of a mutating case, with the policy that made it', async () => {
    const { page } = await setup();
    const select = async (which: 'example' | 'case', text: string) => {
      const value = await page.locator(`#${which} option`, { hasText: text }).first().getAttribute('value');
      const before = await runs(page);
      await page.locator(`#${which}`).selectOption(value ?? '');
      await nextRun(page, before);
    };
    await select('example', 'kinitiras: protected namespaces');
    await select('case', 'annotates labelled Pods on CREATE');
    const settings = await editorText(page, 'settings');
    // A validating webhook unless told otherwise (as createAdmissionWebhook): this case needs a mutating one.
    if (!settings.includes('mutating: true')) await replaceText(page, 'settings', /^\s*(\{\})?\s*$/.test(settings) ? 'mutating: true' : `${settings}\nmutating: true`);
    expect(await verdict(page)).toBe('Allowed');
    const patch = JSON.parse(await page.getByTestId('patch').innerText()) as unknown;
    expect(patch).toEqual([{ op: 'add', path: '/metadata/annotations/added-by', value: 'op' }]);
    const card = page.locator('[data-testid="policy-trace"][data-policy="default/add-anno-op-plaintext"]');
    expect(await card.innerText()).toMatch(/patch[\s\S]*\/metadata\/annotations\/added-by/);
    await page.close();
  });

  it("shows a broken policy's load problems in the editor at their lines", async () => {
    const { page } = await setup();
    const policy = [
      'apiVersion: verdict.dev/v1',
      'kind: Policy',
      'metadata: {name: limits}',
      'spec:',
      '  validate:',
      '    - name: has-spec',
      '      rule: {"!!": {var: object.spec}}',
      '      mesage: every object needs a spec',
    ].join('\n');
    await replaceText(page, 'policies', policy);
    expect(await verdict(page)).toBe('Cannot evaluate');
    expect(await page.getByTestId('problems').innerText()).toMatch(/policies:8:\d+ SCHEMA .*unknown field "mesage"; did you mean "message"/);
    const marked = await page.locator('#policies .cm-content').evaluate((content) => {
      const lines = [...content.querySelectorAll('.cm-line')];
      return [...content.querySelectorAll('.cm-lintRange-error')].map((range) => lines.indexOf(range.closest('.cm-line') as Element) + 1);
    });
    expect(marked).toContain(8);
    await page.close();
  });

  it('restores policies, input, settings and adapter from a shared link', async () => {
    const first = await setup();
    const input = (await editorText(first.page, 'input')).replace('memory: 80Gi', 'memory: 63Gi');
    await replaceText(first.page, 'input', input);
    await first.page.getByRole('button', { name: 'Share' }).click();
    const link = first.page.url();
    expect(link).toMatch(/#s=/);
    const second = await setup(link.slice(link.indexOf('#')));
    expect(await editorText(second.page, 'input')).toBe(input);
    expect(await editorText(second.page, 'policies')).toBe(await editorText(first.page, 'policies'));
    expect(await editorText(second.page, 'settings')).toBe(await editorText(first.page, 'settings'));
    expect(await second.page.locator('#adapter').inputValue()).toBe('kubernetes');
    expect(await verdict(second.page)).toBe('Allowed');
    await first.page.close();
    await second.page.close();
  });

  it("evaluates every example's default case in the browser as its suite expects", async () => {
    const { page, errors } = await setup();
    const ids = await page.locator('#example option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    expect(ids.length).toBeGreaterThanOrEqual(8);
    const adapters = new Set<string>();
    for (const id of ids) {
      const before = await runs(page);
      await page.locator('#example').selectOption(id);
      await nextRun(page, before);
      adapters.add(await page.locator('#adapter').inputValue());
      expect(await verdict(page), id).not.toBe('Cannot evaluate');
      const expectation = page.locator('.expected');
      if (await expectation.count()) expect(await expectation.getAttribute('class'), id).toContain('same');
    }
    expect([...adapters].sort()).toEqual(['ci', 'core', 'fiat', 'kubernetes']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('completes policy keys from the policy schema', async () => {
    const { page } = await setup();
    await replaceText(page, 'policies', 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  ');
    await page.keyboard.type('paramet');
    const options = page.locator('.cm-tooltip-autocomplete li');
    await options.first().waitFor();
    expect(await options.allInnerTexts()).toEqual(expect.arrayContaining(['parameters', 'parametersSchema', 'parameterSelection']));
    await page.close();
  });

  it("explains a key on hover with the schema's description", async () => {
    const { page } = await setup();
    await page.locator('#policies .cm-line span', { hasText: /^forEach$/ }).first().hover();
    expect(await page.locator('.cm-schema-hover').innerText()).toMatch(/the rule runs once per element/);
    await page.close();
  });

  it('takes the screenshot shown in the README, each editor inside its column', async () => {
    const { site, browser } = await session.get();
    const page = await browser.newPage();
    // `pnpm --filter @verdict/site screenshot` runs this test with UPDATE_SCREENSHOT=1 to rewrite the README's image.
    const file = process.env['UPDATE_SCREENSHOT'] === '1' ? join(repoRoot, 'site/playground.png') : join(mkdtempSync(join(tmpdir(), 'verdict-screenshot-')), 'playground.png');
    await screenshotPlayground(page, site.url, file);
    const png = readFileSync(file);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(1400);
    // A long line or hint once stretched the editors under the decision.
    const resultLeft = (await page.locator('.pane.result').boundingBox())?.x ?? 0;
    for (const pane of ['policies', 'input', 'settings']) {
      const box = await page.locator(`.pane.${pane}`).boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? Infinity), pane).toBeLessThanOrEqual(resultLeft);
    }
    await page.close();
  });
});
