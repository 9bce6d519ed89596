/**
 * Workload 2 (target 2): one decision against 10 / 100 / 1,000 / 10,000
 * constraints of four kinds with mixed selectors, of which a handful match
 * each input. verdict selects candidates through its index; the hand-written
 * rows show a tight linear scan and a one-key index; the peers test every
 * constraint (none has an index).
 */
import { compilePolicies, type PolicySet } from '@verdict/core';
import type { Case, Group } from '../method.js';
import { normalisePod, rotate } from '../pods.js';
import { generateSpecs, reqsMatch, scaleDocuments, scaleInputs, type ScaleInput } from './scale-gen.js';
import * as peers from './scale-peers.js';

export const SIZES = [10, 100, 1_000, 10_000] as const;

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sanity check failed: ${what}`);
}

export function scalePolicySet(n: number): PolicySet {
  return compilePolicies(scaleDocuments(generateSpecs(n)));
}

function normalised(input: ScaleInput): ScaleInput {
  return { ...input, object: normalisePod(input.object) };
}

export interface ScaleOptions {
  /** Peer engines to include (default: all). */
  peers?: boolean;
}

export async function scaleWorkload(n: number, options: ScaleOptions = {}): Promise<Group> {
  const specs = generateSpecs(n);
  const set = compilePolicies(scaleDocuments(specs));
  const { good, bad } = scaleInputs(n);
  const normGood = good.map(normalised);
  const normBad = bad.map(normalised);

  const scan = peers.handScan(specs);
  const indexed = peers.handIndex(specs);
  const sync: Array<[string, string, peers.Violations]> = [
    ['hand-written JS, linear scan of selectors', 'baseline-scan', scan],
    ['hand-written JS, index on one selector key', 'baseline', indexed],
  ];
  const peerRows: Array<[string, string, peers.Violations]> = options.peers === false ? [] : [
    ['json-logic-js `apply` per constraint', 'json-logic-js', peers.jsonLogicJs(specs)],
    ['json-logic-engine `build` per constraint', 'json-logic-engine', peers.jsonLogicEngineBuild(specs)],
    ['CASL `ability.can` (one inverted rule per branch)', 'casl', peers.casl(specs)],
  ];
  const jre = options.peers === false ? undefined : peers.jsonRulesEngine(specs);

  // Sanity: same answers everywhere; verdict and the hand-written selectors agree on which constraints match.
  let matched = 0;
  let candidates = 0;
  for (const input of good) {
    const d = set.evaluate(input);
    expect(d.allowed && d.errors.length === 0, `verdict allows good input ${input.object.metadata.name} at N=${n}`);
    const verdictMatched = d.trace.filter((t) => t.matched).map((t) => t.policy).sort();
    const handMatched = specs.filter((s) => reqsMatch(input, s.reqs)).map((s) => s.name).sort();
    expect(verdictMatched.join() === handMatched.join(), `verdict and hand-written select the same constraints at N=${n}`);
    const full = set.evaluate(input, { explain: true });
    expect(full.trace.filter((t) => t.matched).length === verdictMatched.length, 'the index loses no matching constraint');
    matched += verdictMatched.length;
    candidates += d.trace.length;
  }
  for (const input of bad) expect(!set.evaluate(input).allowed, `verdict denies bad input at N=${n}`);
  for (const [name, , check] of sync) {
    for (const input of good) expect(check(input) === 0, `${name} allows good inputs`);
    for (const input of bad) expect(check(input) > 0, `${name} denies bad inputs`);
  }
  for (const [name, , check] of peerRows) {
    for (const input of normGood) expect(check(input) === 0, `${name} allows good inputs at N=${n}`);
    for (const input of normBad) expect(check(input) > 0, `${name} denies bad inputs at N=${n}`);
  }
  if (jre) {
    for (const input of normGood) expect((await jre(input)) === 0, `json-rules-engine allows good inputs at N=${n}`);
    for (const input of normBad) expect((await jre(input)) > 0, `json-rules-engine denies bad inputs at N=${n}`);
  }

  const next = rotate(good);
  const cases: Case[] = [
    { name: 'verdict `PolicySet.evaluate` (index)', engine: 'verdict', reference: true, fn: () => set.evaluate(next()) },
    { name: 'verdict `evaluate(input, {explain: true})` (no index: every selector tested)', engine: 'verdict-explain', fn: () => set.evaluate(next(), { explain: true }) },
  ];
  for (const [name, engine, check] of sync) {
    const nextRaw = rotate(good);
    cases.push({ name, engine, fn: () => check(nextRaw()) });
  }
  for (const [name, engine, check] of peerRows) {
    const nextNorm = rotate(normGood);
    cases.push({ name, engine, fn: () => check(nextNorm()) });
  }
  if (jre) {
    const nextNorm = rotate(normGood);
    cases.push({ name: 'json-rules-engine `engine.run` (one rule per branch, async)', engine: 'json-rules-engine', async: true, fn: () => jre(nextNorm()) });
  }
  return {
    id: `scale-${n}`,
    title: `Workload 2: ${n.toLocaleString('en-US')} constraints`,
    cases,
    info: { constraints: n, matchedPerInput: matched / good.length, candidatesPerInput: candidates / good.length },
  };
}
