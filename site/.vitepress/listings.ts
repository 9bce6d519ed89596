/**
 * Sources the pages link to, written next to the pages at build time: linked
 * files are copied as they are, and a linked directory without a README gets a
 * small index.html listing its files (what a repository browser would show).
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { directoryFiles, type LinkedSources } from './pages.js';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function copy(root: string, outDir: string, file: string): void {
  const target = join(outDir, file);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(root, file), target);
}

/** The listing page of `dir`: its files as relative links, with a link back to the docs. */
export function listingHtml(dir: string, files: readonly string[], base: string): string {
  const items = files.map((file) => {
    const rel = posix.relative(dir, file);
    return `<li><a href="./${encodeURI(rel)}">${escapeHtml(rel)}</a></li>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(dir)} · verdict</title>
<style>body{font:16px/1.6 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#213547}a{color:#3451b2}code{font-size:.9em}</style>
</head><body>
<p><a href="${base}docs/">verdict docs</a></p>
<h1><code>${escapeHtml(dir)}/</code></h1>
<p>Files of this directory of the repository:</p>
<ul>
${items.join('\n')}
</ul>
</body></html>
`;
}

/** Copies linked files, and each linked directory's files with a listing page, into `outDir`. */
export function writeLinkedSources(root: string, outDir: string, sources: LinkedSources, base = '/'): void {
  for (const file of sources.files) copy(root, outDir, file);
  for (const dir of sources.directories) {
    const files = directoryFiles(root, dir);
    for (const file of files) copy(root, outDir, file);
    writeFileSync(join(outDir, dir, 'index.html'), listingHtml(dir, files, base));
  }
}
