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
});
