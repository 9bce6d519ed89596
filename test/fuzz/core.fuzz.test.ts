/**
 * Properties of @verdict/core over random data: label selectors survive a
 * format/parse round trip, the selector index gives the decisions a full scan
 * gives, parameter merging keeps its laws, and every emitted JSON Patch turns
 * the original input into the mutated one.
 */
import fc from 'fast-check';
import jsonpatch, { type Operation } from 'fast-json-patch';
import {
  compilePolicies, diffPatch, formatLabelSelector, matchLabelSelector, mergeParameters, parseLabelSelector,
  type LabelSelector, type LabelSelectorRequirement,
} from '@verdict/core';
import { describe, expect, it } from 'vitest';
import { check, TIMEOUT } from './settings.js';

const KEYS = ['app', 'env', 'tier', 'example.com/team', 'a.b/c-d', 'x_1'];
const VALUES = ['', 'web', 'db', 'prod', 'x1', 'A_b.c', '7'];
const key = fc.constantFrom(...KEYS);
const labelValue = fc.constantFrom(...VALUES);
const labels = fc.dictionary(key, fc.oneof(labelValue, fc.constantFrom('3', '-2', '100')), { maxKeys: 4 });

const requirement: fc.Arbitrary<LabelSelectorRequirement> = fc.oneof(
  fc.record({ key, operator: fc.constantFrom('In' as const, 'NotIn' as const), values: fc.uniqueArray(labelValue, { minLength: 1, maxLength: 3 }) }),
  fc.record({ key, operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const) }),
  fc.record({ key, operator: fc.constantFrom('Gt' as const, 'Lt' as const), values: fc.constantFrom('1', '42', '007').map((v) => [v]) }),
);
const selector: fc.Arbitrary<LabelSelector> = fc.record({
  matchLabels: fc.dictionary(key, labelValue, { maxKeys: 2 }),
  matchExpressions: fc.array(requirement, { maxLength: 3 }),
}, { requiredKeys: [] });

describe('fuzz: label selectors', () => {
  it('survive a format/parse round trip: the text is stable (in apimachinery\'s key order), the answers the same on random labels', () => {
    check(fc.property(selector, fc.array(labels, { minLength: 1, maxLength: 6 }), (sel, maps) => {
      const parsed = parseLabelSelector(formatLabelSelector(sel));
      const text = formatLabelSelector(parsed);
      expect(formatLabelSelector(parseLabelSelector(text))).toBe(text);
      for (const l of maps) expect({ text, labels: l, matches: matchLabelSelector(parsed, l) }).toEqual({ text, labels: l, matches: matchLabelSelector(sel, l) });
    }), 300);
  }, TIMEOUT);
});

const KINDS = ['Pod', 'Deployment', 'Service'];
const policyArb = fc.record({
  kinds: fc.option(fc.uniqueArray(fc.constantFrom(...KINDS, 'Job*'), { minLength: 1, maxLength: 2 }), { nil: undefined }),
  labels: fc.option(fc.dictionary(key, labelValue, { minKeys: 1, maxKeys: 2 }), { nil: undefined }),
  deny: fc.boolean(),
  action: fc.constantFrom('deny', 'warn', 'audit'),
});
const inputArb = fc.record({ kind: fc.constantFrom(...KINDS, 'Job', 'JobSet'), labels });

describe('fuzz: the selector index', () => {
  it('gives exactly the decisions a full scan (explain) gives', () => {
    check(fc.property(fc.array(policyArb, { minLength: 1, maxLength: 8 }), fc.array(inputArb, { minLength: 1, maxLength: 6 }), (specs, inputs) => {
      const set = compilePolicies(specs.map((p, i) => ({
        apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: `p${i}` },
        spec: {
          enforcementAction: p.action,
          match: { ...(p.kinds ? { fields: [{ path: 'kind', values: p.kinds }] } : {}), ...(p.labels ? { labels: { path: 'labels', matchLabels: p.labels } } : {}) },
          validate: [{ name: 'r', rule: !p.deny, message: `p${i} says no to {{kind}}` }],
        },
      })));
      for (const input of inputs) {
        const indexed = set.evaluate(input);
        const scanned = set.evaluate(input, { explain: true });
        const matched = (d: typeof indexed) => d.trace.filter((t) => t.matched).map((t) => [t.policy, t.rules]);
        expect([indexed.allowed, indexed.violations, indexed.warnings, matched(indexed)]).toEqual([scanned.allowed, scanned.violations, scanned.warnings, matched(scanned)]);
      }
    }), 200);
  }, TIMEOUT);
});

const jsonLeaf = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('a', 'b', 'c', ''), fc.boolean());
const params = fc.dictionary(fc.constantFrom('limit', 'teams', 'registries', 'nested', 'flag'), fc.oneof(
  jsonLeaf,
  fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 4 }),
  fc.dictionary(fc.constantFrom('x', 'y', 'z'), fc.oneof(jsonLeaf, fc.array(jsonLeaf, { maxLength: 3 })), { maxKeys: 3 }),
), { maxKeys: 4 });
const override = fc.dictionary(fc.constantFrom('limit', 'teams', 'registries', 'nested', 'flag'), fc.oneof(
  { weight: 4, arbitrary: fc.oneof(jsonLeaf, fc.array(fc.constantFrom('a', 'b', 'e'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('x', 'y'), jsonLeaf, { maxKeys: 2 })) },
  { weight: 1, arbitrary: fc.constant(null) },
), { maxKeys: 3 });

describe('fuzz: parameter merging', () => {
  it('keeps its laws: identity, no mutation, idempotence, null deletes, scalars replace, ordered union of scalar lists', () => {
    check(fc.property(params, override, (base, over) => {
      const baseCopy = structuredClone(base);
      const overCopy = structuredClone(over);
      const merged = mergeParameters(base, over);
      expect(base).toEqual(baseCopy);
      expect(over).toEqual(overCopy);
      expect(mergeParameters(base, {})).toEqual(base);
      expect(mergeParameters(merged, over)).toEqual(merged);
      for (const [k, v] of Object.entries(over)) {
        if (v === null) expect(merged).not.toHaveProperty(k);
        else if (typeof v !== 'object') expect(merged[k]).toBe(v);
        else if (Array.isArray(v) && Array.isArray(base[k])) {
          const b = base[k] as unknown[];
          expect(merged[k]).toEqual([...b, ...v.filter((x, i) => !b.includes(x) && v.indexOf(x) === i)]);
        }
      }
    }), 500);
  }, TIMEOUT);
});

const podArb = fc.record({
  metadata: fc.record({ name: fc.constantFrom('a', 'b'), labels: fc.option(fc.dictionary(fc.constantFrom('app', 'team', 'tier'), labelValue, { maxKeys: 3 }), { nil: undefined }) }, { requiredKeys: ['name'] }),
  spec: fc.record({ containers: fc.array(fc.record({ name: fc.constantFrom('c1', 'c2', 'c3'), image: fc.constantFrom('x', 'y') }), { minLength: 1, maxLength: 3 }) }),
});
const MUTATIONS = [
  { name: 'add-label', patch: [{ op: 'add', path: '/object/metadata/labels/team', value: 'platform' }] },
  { name: 'replace-image', patch: [{ op: 'replace', path: '/object/spec/containers/0/image', value: 'registry.example.com/{{object.spec.containers.0.name}}' }] },
  { name: 'add-container', patch: [{ op: 'add', path: '/object/spec/containers/-', value: { name: 'sidecar', image: 'proxy' } }] },
  { name: 'annotate', patch: [{ op: 'add', path: '/object/metadata/annotations/owner', value: '{{object.metadata.name}}' }] },
  { name: 'remove-tier', when: { exists: 'object.metadata.labels.tier' }, patch: [{ op: 'remove', path: '/object/metadata/labels/tier' }] },
  { name: 'copy-name', patch: [{ op: 'copy', from: '/object/metadata/name', path: '/object/metadata/labels/name' }] },
  { name: 'move-tier', when: { exists: 'object.metadata.labels.tier' }, patch: [{ op: 'move', from: '/object/metadata/labels/tier', path: '/object/metadata/labels/layer' }] },
  { name: 'test-fails', patch: [{ op: 'test', path: '/object/metadata/name', value: 'zzz' }, { op: 'add', path: '/object/x', value: 1 }] },
];

describe('fuzz: mutations', () => {
  it('emit a JSON Patch that fast-json-patch applies to the original input to give the mutated input; the input is untouched', () => {
    check(fc.property(fc.subarray(MUTATIONS, { minLength: 1 }), podArb, (mutations, object) => {
      const set = compilePolicies(mutations.map((m, i) => ({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: `m${i}` }, spec: { order: i, mutate: [m] } })));
      const input = { object };
      const before = structuredClone(input);
      const decision = set.evaluate(input);
      expect(input).toEqual(before);
      const applied = jsonpatch.applyPatch(structuredClone(input), structuredClone(decision.patch) as Operation[], true, true).newDocument;
      expect(applied).toEqual(decision.patch.length > 0 ? decision.mutated : input);
    }), 300);
  }, TIMEOUT);
});

describe('fuzz: JSON Patch', () => {
  const leaf = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -9, max: 99 }), fc.boolean(), fc.constant(null));
  const value = fc.oneof(leaf, fc.array(leaf, { maxLength: 2 }), fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.oneof(leaf, fc.array(leaf, { maxLength: 2 })), { maxKeys: 2 }));
  const doc = fc.record({ a: fc.oneof(fc.record({ b: value }), value), l: fc.array(value, { maxLength: 3 }) }, { requiredKeys: [] });
  const path = fc.constantFrom('/doc', '/doc/a', '/doc/a/b', '/doc/a/b/c', '/doc/a/0', '/doc/l', '/doc/l/0', '/doc/l/1', '/doc/l/-', '/doc/l/9', '/doc/l/x', '/doc/x');
  const op = fc.oneof(
    fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path, value }),
    fc.record({ op: fc.constant('remove'), path }),
    // Not where fast-json-patch departs from RFC 6902 (and core now follows it): it copies null from a "from" that
    // is not an array index, and copies or moves to an array index past the end without an error.
    fc.record({ op: fc.constantFrom('copy', 'move'), from: path.filter((p) => p !== '/doc/l/x' && p !== '/doc/l/-'), path: path.filter((p) => !['/doc/l/1', '/doc/l/9', '/doc/l/x'].includes(p)) }),
  );

  it('diffPatch gives fast-json-patch\'s compare, operation for operation', () => {
    check(fc.property(doc, doc, (before, after) => {
      expect(diffPatch(before, after)).toEqual(jsonpatch.compare(before, after));
    }), 300);
  }, TIMEOUT);

  it('computed operations apply as fast-json-patch applies them, or fail (the rule whole) where it fails', () => {
    const set = compilePolicies([{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { mutate: [{ name: 'r', expression: 'ops' }] } }]);
    check(fc.property(doc, fc.array(op, { minLength: 1, maxLength: 4 }), (d, ops) => {
      const input = { doc: d, ops };
      const decision = set.evaluate(input);
      let expected: unknown;
      let failure: { name?: string } | undefined;
      try {
        expected = jsonpatch.applyPatch(structuredClone(input), structuredClone(ops) as Operation[], true, false).newDocument;
      } catch (error) {
        failure = error as { name?: string };
      }
      if (failure === undefined) {
        expect(decision.errors).toEqual([]);
        expect(decision.patch.length > 0 ? decision.mutated : input).toEqual(expected);
      } else if (failure.name === 'TEST_OPERATION_FAILED') {
        expect(decision.errors).toEqual([]);
        expect(decision.patch).toEqual([]);
      } else {
        expect(decision.errors.map((e) => e.code)).toEqual(['RULE_ERROR']);
        expect(decision.patch).toEqual([]);
      }
    }), 300);
  }, TIMEOUT);
});
