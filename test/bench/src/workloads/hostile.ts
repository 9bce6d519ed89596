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
