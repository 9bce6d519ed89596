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
  const { good, bad } = scaleInputs(n);
  const normGood = good.map(normalised);
  const normBad = bad.map(normalised);
  let matched = 0;
  let candidates = 0;

  // verdict: compiled once for both verdict rows; each row's setup runs the sanity checks first.
  let compiled: PolicySet | undefined = compilePolicies(scaleDocuments(specs));
  for (const input of good) {
    const d = compiled.evaluate(input);
    expect(d.allowed && d.errors.length === 0, `verdict allows good input ${input.object.metadata.name} at N=${n}`);
    const verdictMatched = d.trace.filter((t) => t.matched).map((t) => t.policy).sort();
    const handMatched = specs.filter((s) => reqsMatch(input, s.reqs)).map((s) => s.name).sort();
    expect(verdictMatched.join() === handMatched.join(), `verdict and hand-written select the same constraints at N=${n}`);
    const full = compiled.evaluate(input, { explain: true });
    expect(full.trace.filter((t) => t.matched).length === verdictMatched.length, 'the index loses no matching constraint');
    matched += verdictMatched.length;
    candidates += d.trace.length;
  }
  for (const input of bad) expect(!compiled.evaluate(input).allowed, `verdict denies bad input at N=${n}`);
  const take = (): PolicySet => {
    const set = compiled ?? compilePolicies(scaleDocuments(specs));
    compiled = undefined;
    return set;
  };
  let kept: PolicySet | undefined;

  /** A peer's row: built when measured, sanity-checked first, dropped afterwards. */
  const syncRow = (name: string, engine: string, build: () => peers.Violations, inputs: { good: ScaleInput[]; bad: ScaleInput[] }): Case => ({
    name, engine,
    setup: () => {
      const check = build();
      for (const input of inputs.good) expect(check(input) === 0, `${name} allows good inputs at N=${n}`);
      for (const input of inputs.bad) expect(check(input) > 0, `${name} denies bad inputs at N=${n}`);
      const next = rotate(inputs.good);
      return Promise.resolve(() => check(next()));
    },
  });
  const raw = { good, bad };
  const norm = { good: normGood, bad: normBad };
  const cases: Case[] = [
    {
      name: 'verdict `PolicySet.evaluate` (index)', engine: 'verdict', reference: true,
      setup: () => {
        const set = (kept = take());
        const next = rotate(good);
        return Promise.resolve(() => set.evaluate(next()));
      },
    },
    {
      name: 'verdict `evaluate(input, {explain: true})` (no index: every selector tested)', engine: 'verdict-explain',
      setup: () => {
        const set = kept ?? take();
        kept = undefined;
        const next = rotate(good);
        return Promise.resolve(() => set.evaluate(next(), { explain: true }));
      },
    },
    syncRow('hand-written JS, linear scan of selectors', 'baseline-scan', () => peers.handScan(specs), raw),
    syncRow('hand-written JS, index on one selector key', 'baseline', () => peers.handIndex(specs), raw),
  ];
  if (options.peers !== false) {
    cases.push(
      syncRow('json-logic-js `apply` per constraint', 'json-logic-js', () => peers.jsonLogicJs(specs), norm),
      syncRow('json-logic-engine `build` per constraint', 'json-logic-engine', () => peers.jsonLogicEngineBuild(specs), norm),
      syncRow('CASL `ability.can` (one inverted rule per branch)', 'casl', () => peers.casl(specs), norm),
      {
        name: 'json-rules-engine `engine.run` (one rule per branch, async)', engine: 'json-rules-engine', async: true,
        setup: async () => {
          const jre = peers.jsonRulesEngine(specs);
          for (const input of normGood) expect((await jre(input)) === 0, `json-rules-engine allows good inputs at N=${n}`);
          for (const input of normBad) expect((await jre(input)) > 0, `json-rules-engine denies bad inputs at N=${n}`);
          const next = rotate(normGood);
          return () => jre(next());
        },
      },
    );
  }
  return {
    id: `scale-${n}`,
    title: `Workload 2: ${n.toLocaleString('en-US')} constraints`,
    cases,
    info: { constraints: n, matchedPerInput: matched / good.length, candidatesPerInput: candidates / good.length },
  };
}
