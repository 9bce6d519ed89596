/**
 * Rewrites the CEL conformance record from a fresh run: the known failures
 * (packages/cel/test/fixtures/cel-conformance-known-failures.json, each with its reason) and the table in
 * docs/concepts/cel.md. Run it after a change that makes cases pass (or, on purpose, fail):
 *
 *   pnpm run cel-conformance
 *
 * A failure already listed keeps its reason; a new one gets the reason of the first rule below that
 * matches its name, followed by what the run gave.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformanceTable, runConformance, TABLE_END, TABLE_START } from './cel-conformance.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const KNOWN_FAILURES = join(HERE, 'fixtures', 'cel-conformance-known-failures.json');
export const DOC = join(HERE, '..', '..', '..', 'docs', 'concepts', 'cel.md');

/** Why a case fails, by its name (first match wins). */
const RULES: readonly (readonly [RegExp, string])[] = [
  [/^block_ext\//, 'cel.block is not in Kubernetes\' CEL (not enabled in environment/base.go)'],
  [/^encoders_ext\//, 'ext.Encoders is not in Kubernetes\' CEL (not enabled in environment/base.go)'],
  [/^math_ext\//, 'ext.Math is not in Kubernetes\' CEL (not enabled in environment/base.go)'],
  [/^macros2\//, 'two-variable comprehensions (Kubernetes 1.32, ext.TwoVarComprehensions): not in cel-js 8.0.0'],
  [/^optionals\/.*(optMap|optFlatMap|ofNonZeroValue|optional_chaining_1[2-6]|entry_has)/, 'optional types: optMap, optFlatMap, optional.ofNonZeroValue and optional entries in literals are not in cel-js 8.0.0'],
  [/^optionals\/.*has/, 'has() on a literal or an optional selection is refused by cel-js 8.0.0\'s checker'],
  [/^optionals\/optionals\/type$/, 'type() of an optional value and the optional_type name are not in cel-js 8.0.0'],
  [/^optionals\//, 'optional types: selection on optional.none() and errors below an optional selection differ in cel-js 8.0.0'],
  [/^fields\/map_has\//, 'has() on a map literal is refused by cel-js 8.0.0\'s checker'],
  [/^fields\/quoted_map_fields\//, 'backquoted field names are not parsed by cel-js 8.0.0'],
  [/^fields\/qualified_identifier_resolution\//, 'map literals: invalid key types and duplicate keys are not errors in cel-js 8.0.0'],
  [/^(comparisons|basic|parse)\/.*bytes|^comparisons\/bound\/bytes/, 'bytes: ordering and octal or raw escapes are not in cel-js 8.0.0'],
  [/^comparisons\/.*(big|lossy)/, 'comparisons of int with a double beyond 2^63 are inexact in cel-js 8.0.0'],
  [/^comparisons\/gt_literal\/not_gt_double$/, 'a double literal without its leading zero (.99) is not parsed by cel-js 8.0.0'],
  [/^lists\/(in|index)\//, 'list membership and indexing across int, uint and double are not numeric in cel-js 8.0.0'],
  [/^conversions\/(int|uint)\/.*range|^integer_math\//, 'int64 overflow and out-of-range conversions give a value instead of an error in cel-js 8.0.0'],
  [/^conversions\/.*uint|^parse\/nest\/funcall$/, 'int(uint) is not in cel-js 8.0.0'],
  [/^conversions\/string\/bytes_invalid$/, 'string() of bytes that are not UTF-8 is not an error in cel-js 8.0.0'],
  [/^(conversions|timestamps)\/.*(timestamp|duration|toInt|toString)/, 'conversions of timestamps and durations (int(), string(), identity) are not in cel-js 8.0.0'],
  [/^timestamps\/timestamp_selectors_tz\//, 'numeric time-zone offsets (\'+11:00\') are refused by cel-js 8.0.0'],
  [/^timestamps\/timestamp_arithmetic\//, 'duration + timestamp has no overload, and nanoseconds are lost, in cel-js 8.0.0'],
  [/^timestamps\/(timestamp|duration)_range\//, 'timestamps and durations out of CEL\'s range give a value instead of an error in cel-js 8.0.0'],
  [/^macros\/exists_one\/map_one$/, 'exists_one over a map iterates its values instead of its keys in cel-js 8.0.0'],
  [/^macros\/all\/list_empty$/, 'cel-js 8.0.0\'s checker finds overlapping overloads for an element of an empty list'],
  [/^string_ext\/format\/.*(NaN|infinity) support for decimal/, 'string.format: %d of a double NaN or infinity'],
  [/^string_ext\/format\//, 'string.format: verdict\'s formatting of this value differs from cel-go'],
];

export function reasonFor(name: string): string | undefined {
  return RULES.find(([pattern]) => pattern.test(name))?.[1];
}

/** The docs page with its table replaced by `table`. */
export function withTable(doc: string, table: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/concepts/cel.md has no conformance table markers (${TABLE_START})`);
  return `${doc.slice(0, start + TABLE_START.length)}\n${table}\n${doc.slice(end)}`;
}

function main(): void {
  const outcomes = runConformance();
  const earlier = JSON.parse(readFileSync(KNOWN_FAILURES, 'utf8')) as Record<string, string>;
  const known: Record<string, string> = {};
  for (const [name, o] of outcomes) {
    if (o.pass) continue;
    known[name] = earlier[name] ?? `${reasonFor(name) ?? 'not yet explained'} (${o.why})`;
  }
  writeFileSync(KNOWN_FAILURES, `${JSON.stringify(known, null, 2)}\n`);
  const table = conformanceTable(outcomes);
  writeFileSync(DOC, withTable(readFileSync(DOC, 'utf8'), table));
  console.log(table);
  console.log(`\n${Object.keys(known).length} known failures written to ${KNOWN_FAILURES}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
