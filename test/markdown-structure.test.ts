/**
 * The README and every page of the docs site are well-formed Markdown: each
 * code fence is closed (an open one swallows the rest of the page, headings
 * included), and no heading appears twice on a page (the second gets no anchor
 * of its own, and usually means a section was pasted twice).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectPages } from '../site/.vitepress/pages.js';

const root = join(import.meta.dirname, '..');

/** Unclosed fences and repeated headings of a Markdown text (CommonMark fences: ``` or ~~~, closed by the same character, at least as long). */
function structureProblems(markdown: string): string[] {
  const problems: string[] = [];
  const headings = new Map<string, number>();
  let fence: { marker: string; line: number } | undefined;
  markdown.split('\n').forEach((text, i) => {
    const line = i + 1;
    const marker = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(text);
    if (fence) {
      if (marker && marker[1]![0] === fence.marker[0] && marker[1]!.length >= fence.marker.length && marker[2]!.trim() === '') fence = undefined;
      return;
    }
    if (marker) {
      fence = { marker: marker[1]!, line };
      return;
    }
    const heading = /^ {0,3}(#{1,6})\s+(.*?)(\s+#+)?\s*$/.exec(text);
    if (!heading) return;
    const key = heading[2]!.toLowerCase();
    const first = headings.get(key);
    if (first === undefined) headings.set(key, line);
    else problems.push(`line ${line}: heading "${heading[2]}" repeats line ${first}`);
  });
  if (fence) problems.push(`line ${fence.line}: code fence ${fence.marker} is never closed`);
  return problems;
}

describe('the Markdown of the README and the site', () => {
  it('finds an unclosed fence and a repeated heading', () => {
    expect(structureProblems('# a\n\n## b\n\n```\ncode\n\n## b\n')).toEqual(['line 5: code fence ``` is never closed']);
    expect(structureProblems('# a\n\n## b\n\n```sh\n## not a heading\n```\n\n## b\n')).toEqual(['line 9: heading "b" repeats line 3']);
  });

  it('has every fence closed and every heading once, on every page', () => {
    const pages = collectPages(root);
    expect(pages).toContain('README.md');
    const problems = pages.flatMap((page) => structureProblems(readFileSync(join(root, page), 'utf8')).map((p) => `${page} ${p}`));
    expect(problems).toEqual([]);
  });
});
