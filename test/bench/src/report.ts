/**
 * `report.ts results.json`: writes docs/performance.md and
 * docs/performance-scale.svg from a results file written by
 * `main.ts --json`. Refuses quick-mode results (not for publishing).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Results } from './aggregate.js';
import { renderChart } from './chart.js';
import { renderReport } from './report-render.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const file = process.argv[2] ?? 'results/latest.json';
const results = JSON.parse(readFileSync(resolve(root, file), 'utf8')) as Results;
if (results.mode !== 'full' && !process.argv.includes('--allow-quick')) {
  console.error(`report: ${file} holds quick-mode results; run \`pnpm --filter @verdict/bench run report\` for a full run`);
  process.exit(1);
}
const docs = resolve(root, '../../docs');
const chart = 'performance-scale.svg';
writeFileSync(resolve(docs, chart), renderChart(results.groups));
writeFileSync(resolve(docs, 'performance.md'), renderReport(results, chart));
console.log(`wrote docs/performance.md and docs/${chart}`);
