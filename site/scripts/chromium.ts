/**
 * The system Chromium, driven by playwright-core (no browser download:
 * `.ci/run` installs Debian's chromium when it is missing), and the
 * playground-specific waits the tests and the screenshot share.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Flags Chromium needs on a machine without a network or a GPU, and as root. */
const CHROMIUM_ARGS = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

/** The Chromium to drive: `$CHROMIUM_PATH`, else Debian's or another system install. */
export function chromiumPath(): string {
  const candidates = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  const found = candidates.find((path): path is string => !!path && existsSync(path));
  if (!found) throw new Error("no Chromium found: install Debian's chromium (`apt-get install chromium`; .ci/run does it) or set CHROMIUM_PATH");
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}

/** How many evaluations the playground has rendered so far. */
export async function runs(page: Page): Promise<number> {
  return Number(await page.evaluate(() => document.body.dataset['runs'] ?? '0'));
}

/** Waits until the playground has rendered more than `after` evaluations. */
export async function nextRun(page: Page, after: number): Promise<void> {
  await page.waitForFunction((n) => Number(document.body.dataset['runs'] ?? '0') > n, after, { timeout: 20_000 });
}

/** The README's screenshot: the default example, decision and trace, at a desktop size. */
export async function screenshotPlayground(page: Page, baseUrl: string, file: string): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(`${baseUrl}playground/`);
  await nextRun(page, 0);
  await page.screenshot({ path: file });
}
