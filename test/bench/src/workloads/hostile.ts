/**
 * Workload 6 (target 6): hostile inputs. The hostile patterns of the bounded-evaluation work, each
 * evaluated by a one-rule policy against a benign input and a hostile one of the
 * same length (50,000 characters): linear-time matching makes the two cost about
 * the same. For scale, the engines verdict used before (JavaScript's RegExp,
 * minimatch's RegExp) run the hostile inputs at a few dozen characters, where
 * their backtracking already takes milliseconds and doubles (or worse) with each
 * character.
 */
import { compilePolicies, type PolicySet } from '@verdict/core';
import { makeRe } from 'minimatch';
import type { Case, Group } from '../method.js';

/** Characters in each benign and hostile input. */
export const LENGTH = 50_000;
const TEAM_PATTERN = '^([a-z0-9]+-?)+$';
const DASHES = '*-*-*-*-*.internal';
const STARS = '*a*a*a*a*a*a*a*b';
/** With `**`, the glob runs on the NFA rather than the string test. */
const DEEP = '**/*-*-*-*-*.internal';

function policy(name: string, rule: unknown): PolicySet {
  return compilePolicies([{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name }, spec: { validate: [{ name, rule, message: `${name} does not match` }] } }]);
}

/** A string of exactly `length` characters: `unit` repeated, then `tail`. */
function sized(unit: string, tail: string, length = LENGTH): string {
  const body = unit.repeat(Math.ceil((length - tail.length) / unit.length)).slice(0, length - tail.length);
  return body + tail;
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sanity check failed: ${what}`);
}

interface VerdictRow {
  name: string;
  engine: string;
  set: PolicySet;
  input: Record<string, unknown>;
  /** The answer the sanity check expects: benign inputs pass, hostile ones fail. */
  allowed: boolean;
}

/** A timed `PolicySet.evaluate` row, after checking its answer. */
function verdictCase(row: VerdictRow): Case {
  const decision = row.set.evaluate(row.input);
  expect(decision.allowed === row.allowed && decision.errors.length === 0, `${row.name}: allowed ${String(row.allowed)}`);
  const c: Case = { name: row.name, engine: row.engine, fn: () => row.set.evaluate(row.input) };
  if (row.engine === 'verdict') c.reference = true;
  return c;
}

export function hostileRegexWorkload(): Group {
  const set = policy('team', { regex: [TEAM_PATTERN, { var: 'object.metadata.labels.team' }] });
  const label = (team: string) => ({ object: { metadata: { labels: { team } } } });
  const benign = sized('platform-team-', 'x');
  const hostile = sized('a', '!');
  const before = new RegExp(TEAM_PATTERN);
  const short = sized('a', '!', 18);
  expect(!before.test(short), 'RegExp rejects the hostile label');
  return {
    id: 'hostile-regex',
    title: `Workload 6a: \`{regex: ["${TEAM_PATTERN}", {var: object.metadata.labels.team}]}\`, labels of ${LENGTH.toLocaleString('en-US')} characters`,
    cases: [
      verdictCase({ name: 'benign label (`platform-team-…x`, matches)', engine: 'verdict', set, input: label(benign), allowed: true }),
      verdictCase({ name: 'hostile label (`aaa…a!`, the backtracking worst case)', engine: 'verdict-hostile', set, input: label(hostile), allowed: false }),
      { name: `before: JavaScript RegExp on the hostile label at ${short.length} characters`, engine: 'regexp', fn: () => before.test(short), note: 'backtracking: the time doubles with each added character' },
    ],
    info: { inputCharacters: LENGTH, pattern: TEAM_PATTERN },
  };
}

export function hostileGlobWorkload(): Group {
  const dashes = policy('image', { glob: [[DASHES], { var: 'object.image' }] });
  const stars = policy('name', { glob: [[STARS], { var: 'object.name' }] });
  const deep = policy('path', { glob: [[DEEP], { var: 'object.path' }] });
  const beforeDashes = makeRe(DASHES, { dot: true, nocomment: true, nonegate: true });
  const beforeStars = makeRe(STARS, { dot: true, nocomment: true, nonegate: true });
  if (!beforeDashes || !beforeStars) throw new Error('minimatch did not compile the patterns');
  const shortDashes = '-'.repeat(60);
  const shortStars = 'a'.repeat(24);
  expect(!beforeDashes.test(shortDashes) && !beforeStars.test(shortStars), 'minimatch rejects the hostile names');
  return {
    id: 'hostile-glob',
    title: `Workload 6b: \`glob\` with \`${DASHES}\`, \`${STARS}\` and \`${DEEP}\`, inputs of ${LENGTH.toLocaleString('en-US')} characters`,
    cases: [
      verdictCase({ name: `benign image for \`${DASHES}\` (\`a-b-c-d-…\`, matches)`, engine: 'verdict', set: dashes, input: { object: { image: sized('a-b-c-d-', '.internal') } }, allowed: true }),
      verdictCase({ name: `hostile image for \`${DASHES}\` (${LENGTH.toLocaleString('en-US')} dashes)`, engine: 'verdict-hostile', set: dashes, input: { object: { image: '-'.repeat(LENGTH) } }, allowed: false }),
      verdictCase({ name: `benign name for \`${STARS}\` (\`abab…b\`, matches)`, engine: 'verdict-benign-stars', set: stars, input: { object: { name: sized('ab', 'b') } }, allowed: true }),
      verdictCase({ name: `hostile name for \`${STARS}\` (${LENGTH.toLocaleString('en-US')} × \`a\`)`, engine: 'verdict-hostile-stars', set: stars, input: { object: { name: 'a'.repeat(LENGTH) } }, allowed: false }),
      verdictCase({ name: `benign path for \`${DEEP}\` (\`dir/dir/…/a-b-c-d-e.internal\`, matches; NFA)`, engine: 'verdict-benign-nfa', set: deep, input: { object: { path: sized('dir/', '/a-b-c-d-e.internal') } }, allowed: true }),
      verdictCase({ name: `hostile path for \`${DEEP}\` (${LENGTH.toLocaleString('en-US')} dashes; NFA)`, engine: 'verdict-hostile-nfa', set: deep, input: { object: { path: '-'.repeat(LENGTH) } }, allowed: false }),
      { name: `before: minimatch RegExp, \`${DASHES}\`, ${shortDashes.length} dashes`, engine: 'minimatch-dashes', fn: () => beforeDashes.test(shortDashes) },
      { name: `before: minimatch RegExp, \`${STARS}\`, ${shortStars.length} × \`a\``, engine: 'minimatch-stars', fn: () => beforeStars.test(shortStars) },
    ],
    info: { inputCharacters: LENGTH },
  };
}

function celPolicy(name: string, expression: string): PolicySet {
  return compilePolicies([{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name }, spec: { validate: [{ name, expression, message: `${name} does not hold` }] } }]);
}

const containers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `registry.example.com/team/app${i}:1.${i}` }));
function nested(depth: number): Record<string, unknown> {
  let o: Record<string, unknown> = { leaf: 'x' };
  for (let i = 0; i < depth; i++) o = { x: o };
  return o;
}

/**
 * Workload 6c: CEL on hostile objects, against benign ones at the same cost. A map `in` over 10,001 labels
 * inside a loop costs what it costs over 10 (a hash lookup: the map is read unconverted); comparing two specs
 * nested 10,000 deep, two of 5,000 containers or two metadata of 10,001 labels is charged per container and
 * entry converted to CEL values and per element compared, so it takes about as long per unit as a realistic
 * per-container check. Each row's units are in the group's info (`cost:<engine>`); target 6 compares time per unit.
 */
export function hostileCelWorkload(): Group {
  const labels = celPolicy('team-label', "object.spec.containers.all(c, 'team' in object.metadata.labels)");
  const images = celPolicy('registry', "object.spec.containers.all(c, c.image.startsWith('registry.example.com/') && !c.image.endsWith(':latest'))");
  const unchanged = celPolicy('unchanged', 'object.spec == oldObject.spec');
  const sameMetadata = celPolicy('same-metadata', 'object.metadata == oldObject.metadata');
  const labelMap = (n: number) => ({ ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, `v${i}`])), team: 'payments' });
  const pod = (spec: unknown, labelCount = 10) => ({ metadata: { name: 'web', labels: labelMap(labelCount) }, spec });
  const rows: Array<VerdictRow> = [
    { name: "`'team' in object.metadata.labels` in a loop over 2,000 containers, 10 labels", engine: 'verdict-cel-benign-labels', set: labels, input: { object: pod({ containers: containers(2_000) }) }, allowed: true },
    { name: "the same, 10,001 labels (a hash lookup: the same cost)", engine: 'verdict-cel-hostile-labels', set: labels, input: { object: pod({ containers: containers(2_000) }, 10_000) }, allowed: true },
    { name: 'a per-container check (`startsWith`, `endsWith`) over 20,000 containers', engine: 'verdict-cel-benign', set: images, input: { object: pod({ containers: containers(20_000) }) }, allowed: true },
    { name: '`object.spec == oldObject.spec`, specs nested 10,000 deep', engine: 'verdict-cel-hostile-deep', set: unchanged, input: { object: pod(nested(10_000)), oldObject: pod(nested(10_000)) }, allowed: true },
    { name: '`object.metadata == oldObject.metadata`, 10,001 labels each (converted whole, then compared)', engine: 'verdict-cel-hostile-labels-equal', set: sameMetadata, input: { object: pod({}, 10_000), oldObject: pod({}, 10_000) }, allowed: true },
    { name: '`object.spec == oldObject.spec`, specs of 5,000 containers', engine: 'verdict-cel-hostile-wide', set: unchanged, input: { object: pod({ containers: containers(5_000) }), oldObject: pod({ containers: containers(5_000) }) }, allowed: true },
  ];
  const info: Record<string, number | string> = {};
  for (const row of rows) info[`cost:${row.engine}`] = row.set.evaluate(row.input).cost ?? 0;
  return {
    id: 'hostile-cel',
    title: 'Workload 6c: CEL rules on hostile objects (wide label maps, deep and wide specs) against benign ones, time per unit of cost',
    cases: rows.map((row) => verdictCase(row)),
    info,
  };
}
