import { describe, expect, it } from 'vitest';
import { compilePolicies, parsePolicyDocuments, PolicyLoadError, type DocumentTranslator, type PolicyDocument, type TranslatedUnit } from '@verdict/core';

/** A toy vocabulary: `kind: Limit` with `max`, plus `kind: LimitUse` binding it to inputs of one team; `kind: Note` is data. */
function setup() {
  const translator: DocumentTranslator = {
    name: 'limits',
    claim: (documents) => documents.flatMap((d, i) => (['Limit', 'LimitUse', 'Note'].includes((d as PolicyDocument)['kind'] as string) ? [i] : [])),
    translate(claimed, ctx) {
      const docs = claimed.map((i) => ({ i, doc: ctx.documents[i] as PolicyDocument }));
      const units: TranslatedUnit[] = [];
      for (const { i, doc } of docs.filter((d) => d.doc['kind'] === 'Limit')) {
        const name = (doc['metadata'] as { name: string }).name;
        const uses = docs.filter((d) => d.doc['kind'] === 'LimitUse' && d.doc['policy'] === name);
        if (uses.length === 0) ctx.problem(i, '/metadata/name', `limit "${name}" has no LimitUse`);
        units.push({
          template: {
            origin: i,
            path: (p) => p.replace('/spec/validate/0/rule', '/rule'),
            document: { apiVersion: 'verdict.dev/v1', kind: 'PolicyTemplate', metadata: { name }, spec: { kind: 'Small', validate: [{ name: 'max', rule: doc['rule'], message: 'too big' }] } },
          },
          policies: uses.map((u) => ({
            origin: u.i,
            document: { apiVersion: 'verdict.dev/v1', kind: 'LimitUse', metadata: u.doc['metadata'], spec: { match: { fields: [{ path: 'team', values: [u.doc['team']] }] } } },
          })),
        });
      }
      return units;
    },
  };
  const load = (text: string) => compilePolicies(parsePolicyDocuments(text, { source: 'limits.yaml' }), { translators: [translator] });
  return { load };
}

const LIMIT = 'kind: Limit\nmetadata: {name: small}\nrule: {"<=": [{var: size}, 3]}\n';

describe('document translators', () => {
  it('compiles translated documents, each bound policy with its own template, and leaves claimed data out', () => {
    const { load } = setup();
    const set = load(`${LIMIT}---\nkind: LimitUse\nmetadata: {name: a-team}\npolicy: small\nteam: a\n---\nkind: Note\nmetadata: {name: n}\n`);
    expect(set.policies.map((p) => `${p.kind}/${p.name} (${p.template})`)).toEqual(['LimitUse/a-team (small)']);
    expect(set.evaluate({ team: 'a', size: 5 }).violations.map((v) => v.message)).toEqual(['too big']);
    expect(set.evaluate({ team: 'b', size: 5 }).allowed).toBe(true);
  });

  it('reports problems of a translated document at the claimed document, with its line', () => {
    const { load } = setup();
    let error: unknown;
    try {
      load(`kind: Other\n---\n${LIMIT.replace('{"<=": [{var: size}, 3]}', '{nope: 1}')}---\nkind: LimitUse\nmetadata: {name: a-team}\npolicy: small\nteam: a\n`);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PolicyLoadError);
    const problem = (error as PolicyLoadError).problems.find((p) => p.code === 'INVALID_RULE');
    expect(problem).toMatchObject({ document: 1, path: '/rule/nope', name: 'Limit/small', source: 'limits.yaml', line: 5 });
  });

  it('passes problems a translator reports itself through with the document name', () => {
    const { load } = setup();
    expect(() => load(LIMIT)).toThrow(/limit "small" has no LimitUse/);
  });

  it('does not let a bound template define a kind for other constraints', () => {
    const { load } = setup();
    expect(() => load(`${LIMIT}---\nkind: LimitUse\nmetadata: {name: a-team}\npolicy: small\nteam: a\n---\napiVersion: verdict.dev/v1\nkind: Small\nmetadata: {name: stray}\n`)).toThrow(/no PolicyTemplate defines kind "Small"/);
  });

  it("names the user's documents and places in an explained trace, and leaves other traces as they were", () => {
    const { load } = setup();
    const set = load(`${LIMIT}---\nkind: LimitUse\nmetadata: {name: a-team}\npolicy: small\nteam: a\n---\napiVersion: verdict.dev/v1\nkind: PolicyTemplate\nmetadata: {name: own}\nspec: {kind: Own, validate: [{name: any, rule: true, message: never}]}\n---\napiVersion: verdict.dev/v1\nkind: Own\nmetadata: {name: mine}\nspec: {match: {fields: [{path: team, values: [c]}]}}\n`);
    const explained = set.evaluate({ team: 'b', size: 5 }, { explain: true });
    const use = explained.trace.find((t) => t.kind === 'LimitUse')!;
    expect(use.source).toEqual({ document: 1, kind: 'LimitUse', name: 'a-team', path: '', file: 'limits.yaml', line: 5, column: 1 });
    // The generated document's match is the LimitUse's own (the default path mapping), in its file and line.
    expect(use.mismatch).toMatchObject({ at: '/spec/match/fields/0', source: { document: 1, kind: 'LimitUse', path: '/spec/match/fields/0', file: 'limits.yaml' } });
    const own = explained.trace.find((t) => t.kind === 'Own')!;
    expect(own.source).toBeUndefined();
    expect(own.mismatch).toEqual({ at: '/spec/match/fields/0', selector: expect.any(String) });
    const failed = set.evaluate({ team: 'a', size: 5 }, { explain: true }).trace.find((t) => t.kind === 'LimitUse')!;
    // The rule is the Limit's (the template's origin), at the place its path mapping gives.
    expect(failed.rules[0]).toMatchObject({ rule: 'max', result: 'fail', source: { document: 0, kind: 'Limit', name: 'small', path: '/spec/validate/0', line: 1 } });
    // Without explain, traces are core's, unchanged.
    const plain = set.evaluate({ team: 'a', size: 5 }).trace.find((t) => t.kind === 'LimitUse')!;
    expect(plain.source).toBeUndefined();
    expect(plain.rules[0]!.source).toBeUndefined();
  });

  it("shows every action a translated policy's document applies, and a CEL rule's place at its expression or failed messageExpression", () => {
    const translator: DocumentTranslator = {
      name: 'checks',
      claim: (documents) => documents.flatMap((d, i) => ((d as PolicyDocument)['kind'] === 'Check' ? [i] : [])),
      translate: (claimed) => claimed.map((i) => ({
        template: {
          origin: i,
          path: (p) => p.replace('/spec/validate/', '/checks/'),
          document: { apiVersion: 'verdict.dev/v1', kind: 'PolicyTemplate', metadata: { name: `t${i}` }, spec: { kind: `Check${i}`, validate: [
            { name: 'small', expression: 'object.size <= 3', messageExpression: 'object.missing.name', message: 'too big' },
            { name: 'named', expression: 'has(object.name)' },
          ] } },
        },
        policies: [{ origin: i, actions: ['deny', 'audit'], document: { apiVersion: 'verdict.dev/v1', kind: 'Check', metadata: { name: `c${i}` }, spec: { enforcementAction: 'deny' } } }],
      })),
    };
    const text = 'kind: Check\nchecks:\n  - {expression: "object.size <= 3", messageExpression: object.missing.name, message: too big}\n  - expression: has(object.name)\n';
    const set = compilePolicies(parsePolicyDocuments(text, { source: 'checks.yaml' }), { translators: [translator] });
    const [trace] = set.evaluate({ object: { size: 5 } }, { explain: true }).trace;
    expect(trace).toMatchObject({ enforcementAction: 'deny', actions: ['deny', 'audit'] });
    // The first rule failed and so did its messageExpression: the message was used, and the place is that field.
    expect(trace!.rules[0]).toMatchObject({ result: 'fail', at: '/messageExpression', message: expect.stringMatching(/^messageExpression failed: /), source: { path: '/checks/0/messageExpression', line: 3 } });
    expect(trace!.rules[1]).toMatchObject({ result: 'fail', source: { path: '/checks/1/expression', line: 4 } });
    expect(trace!.rules[1]).not.toHaveProperty('at');
    expect(set.evaluate({ object: { size: 5 } }).violations.map((v) => v.message)).toEqual(['too big', 'failed expression: has(object.name)']);
    // Without explain: no actions and no places, but the rule still says its messageExpression failed.
    const plain = set.evaluate({ object: { size: 5 } }).trace[0]!;
    expect(plain).not.toHaveProperty('actions');
    expect(plain.rules[0]).toMatchObject({ at: '/messageExpression' });
    expect(plain.rules[0]).not.toHaveProperty('source');
  });
});
