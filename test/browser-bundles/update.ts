/** `pnpm size`: measures the browser bundles, records them in budget.json and rewrites the section of docs/performance.md. */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureBundles } from './measure.js';
import { BUDGET_FILE, readBudget, renderBundleSection, SECTION_END, SECTION_START, type Budget } from './render.js';

const docs = resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/performance.md');
const budget: Budget = { tolerance: readBudget().tolerance, bundles: await measureBundles() };
writeFileSync(BUDGET_FILE, `${JSON.stringify(budget, null, 2)}\n`);
const page = readFileSync(docs, 'utf8');
const start = page.indexOf(SECTION_START);
const end = page.indexOf(SECTION_END);
const section = renderBundleSection(budget);
const updated = start >= 0 && end > start
  ? page.slice(0, start) + section + page.slice(end + SECTION_END.length)
  : page.replace(/\n## The design choices/, `\n${section}\n\n## The design choices`);
writeFileSync(docs, updated);
for (const [name, size] of Object.entries(budget.bundles)) console.log(`${name}: ${size.gzip} B gzip (${size.withCore} B with core)`);
