/**
 * The scaling chart (docs/performance-scale.svg): time per decision against
 * the number of constraints, log–log, one line per row of workload 2.
 * Plain SVG, no dependencies.
 */
import type { AggregatedGroup } from './aggregate.js';

const W = 820;
const H = 460;
const M = { left: 70, right: 235, top: 40, bottom: 52 };
const COLORS: Record<string, string> = {
  verdict: '#1b6ac9', 'verdict-explain': '#7fa9de', baseline: '#2e8b57', 'baseline-scan': '#8fc9a3',
  'json-logic-js': '#d9822b', 'json-logic-engine': '#b8860b', casl: '#8e44ad', 'json-rules-engine': '#c0392b', casbin: '#7f8c8d',
};

const LABELS: Record<string, string> = {
  verdict: 'verdict evaluate (index)', 'verdict-explain': 'verdict, explain: true (no index)', baseline: 'hand-written JS, index',
  'baseline-scan': 'hand-written JS, linear scan', 'json-logic-js': 'json-logic-js apply', 'json-logic-engine': 'json-logic-engine build',
  casl: 'CASL ability.can', 'json-rules-engine': 'json-rules-engine run', casbin: 'casbin enforceSync',
};

/** `1 µs`, `10 µs`, … for powers of ten in ns. */
function decade(e: number): string {
  const units: Array<[number, string]> = [[9, 's'], [6, 'ms'], [3, 'µs'], [0, 'ns']];
  const [base, unit] = units.find(([b]) => e >= b)!;
  return `${10 ** (e - base)} ${unit}`;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/`/g, '');

export function renderChart(groups: readonly AggregatedGroup[]): string {
  const scale = groups.filter((g) => g.id.startsWith('scale-')).sort((a, b) => Number(a.info?.['constraints']) - Number(b.info?.['constraints']));
  const sizes = scale.map((g) => Number(g.info?.['constraints']));
  const series = (scale[0]?.rows ?? []).map((r) => ({
    name: r.name, engine: r.engine,
    points: scale.map((g, i) => ({ n: sizes[i]!, ns: g.rows.find((x) => x.name === r.name)?.ns ?? NaN })).filter((p) => Number.isFinite(p.ns)),
  }));
  const all = series.flatMap((s) => s.points.map((p) => p.ns));
  const yMin = Math.floor(Math.log10(Math.min(...all, 1e3)));
  const yMax = Math.ceil(Math.log10(Math.max(...all, 1e4)));
  const xMin = Math.log10(Math.min(...sizes, 10));
  const xMax = Math.log10(Math.max(...sizes, 10_000));
  const px = (n: number) => M.left + ((Math.log10(n) - xMin) / (xMax - xMin || 1)) * (W - M.left - M.right);
  const py = (ns: number) => H - M.bottom - ((Math.log10(ns) - yMin) / (yMax - yMin || 1)) * (H - M.top - M.bottom);

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${M.left}" y="22" font-size="15" font-weight="600">Time per decision vs number of constraints (log–log; lower is better)</text>`,
  ];
  for (let e = yMin; e <= yMax; e++) {
    const y = py(10 ** e);
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y}" y2="${y}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${M.left - 8}" y="${y + 4}" text-anchor="end" fill="#555">${decade(e)}</text>`);
  }
  for (const n of sizes) {
    const x = px(n);
    out.push(`<line x1="${x}" x2="${x}" y1="${M.top}" y2="${H - M.bottom}" stroke="#eeeeee"/>`);
    out.push(`<text x="${x}" y="${H - M.bottom + 18}" text-anchor="middle" fill="#555">${n.toLocaleString('en-US')}</text>`);
  }
  out.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 12}" text-anchor="middle" fill="#333">constraints in the policy set (a handful match each input)</text>`);
  out.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#999"/>`);
  out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#999"/>`);

  series.forEach((s, i) => {
    const color = COLORS[s.engine] ?? '#444';
    const bold = s.engine === 'verdict';
    const dash = s.engine.startsWith('baseline') || s.engine === 'verdict-explain' ? ' stroke-dasharray="5 4"' : '';
    const d = s.points.map((p, j) => `${j ? 'L' : 'M'}${px(p.n).toFixed(1)},${py(p.ns).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="${bold ? 3.5 : 1.8}"${dash}/>`);
    for (const p of s.points) out.push(`<circle cx="${px(p.n).toFixed(1)}" cy="${py(p.ns).toFixed(1)}" r="${bold ? 4 : 2.8}" fill="${color}"/>`);
    const ly = M.top + 8 + i * 26;
    const lx = W - M.right + 16;
    out.push(`<line x1="${lx}" x2="${lx + 22}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="${bold ? 3.5 : 1.8}"${dash}/>`);
    out.push(`<text x="${lx + 28}" y="${ly + 4}" fill="#222"${bold ? ' font-weight="600"' : ''}>${esc(LABELS[s.engine] ?? s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
