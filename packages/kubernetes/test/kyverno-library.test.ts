import { describe, expect, it } from 'vitest';
import { admissionReviewFor, loadKubernetesPolicies, toAdmissionInput } from '@verdict/kubernetes';
import { parseKyvernoImage } from '../src/kyverno/image.js';
import { podWith, validatingPolicy } from './kyverno-helpers.js';

/** The message of a policy whose only validation fails with `messageExpression` (its value, as Kyverno shows it). */
function evaluate(messageExpression: string, object = podWith('nginx:1')): string {
  const set = loadKubernetesPolicies([validatingPolicy('p', { validations: [{ expression: 'false', messageExpression }] })] as never);
  const decision = set.evaluate(toAdmissionInput(admissionReviewFor(object)));
  return decision.violations[0]?.message ?? decision.errors[0]?.message ?? '';
}

describe('Kyverno\'s image library', () => {
  it('parses references as go-containerregistry does: Docker Hub\'s registry and library/, latest when no tag', () => {
    expect(evaluate("[image('nginx').registry(), image('nginx').repository(), image('nginx').tag(), image('nginx').identifier()].join(' ')")).toBe('index.docker.io library/nginx latest latest');
    expect(evaluate("[parseImageReference('ghcr.io/org/app:v2').registry(), parseImageReference('ghcr.io/org/app:v2').repository(), parseImageReference('localhost:5000/app').registry()].join(' ')")).toBe('ghcr.io org/app localhost:5000');
  });

  it('reads digests, and tells references from other strings', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(evaluate(`string(image('nginx@${digest}').containsDigest()) + ' ' + image('nginx@${digest}').digest() + ' ' + image('nginx@${digest}').tag()`)).toBe(`true ${digest} `);
    expect(evaluate("string(isImage('nginx:1.27')) + ' ' + string(isImage('Not An Image'))")).toBe('true false');
  });

  it('makes a reference that does not parse a run-time error', () => {
    expect(evaluate("image('UPPER/case').registry()")).toMatch(/failed to evaluate message expression: .*could not parse reference: UPPER\/case/);
    expect(parseKyvernoImage('nginx:')).toBe('could not parse reference: nginx:');
  });
});

describe('Kyverno\'s json, yaml, user, math and transform libraries', () => {
  it('unmarshals and marshals JSON, with sorted keys and numbers as doubles (Go\'s encoding)', () => {
    expect(evaluate(`string(json.unmarshal('{"b": 2, "a": [1]}').b + 0.5)`)).toBe('2.5');
    expect(evaluate(`json.marshal({'b': 1, 'a': '<x>'})`)).toBe('{"a":"\\u003cx\\u003e","b":1}');
  });

  it('parses YAML 1.1, as sigs.k8s.io/yaml does: yes is true, and a key `on` becomes "true"', () => {
    expect(evaluate("string(yaml.parse('on: yes\\nlist: [1, 2]')['true']) + ' ' + string(size(yaml.parse('on: yes\\nlist: [1, 2]').list))")).toBe('true 2');
  });

  it('splits a service account user name, and gives empty parts for other users', () => {
    expect(evaluate("parseServiceAccount('system:serviceaccount:team-a:builder').Namespace + '/' + user.parseServiceAccount('system:serviceaccount:team-a:builder').Name")).toBe('team-a/builder');
    expect(evaluate("'[' + parseServiceAccount('alice').Name + ']'")).toBe('[]');
  });

  it('rounds half away from zero, and maps two lists of objects to a map', () => {
    expect(evaluate('string(math.round(2.345, 2)) + " " + string(math.round(-0.5, 0))')).toBe('2.35 -1');
    expect(evaluate("listObjToMap([{'k': 'a'}], [{'v': 1}], 'k', 'v').a == 1 ? 'ok' : 'no'")).toBe('ok');
  });
});

describe('Kyverno\'s CEL compatibility rules', () => {
  it('gives the value itself for orValue on a value that is not optional (Kyverno\'s cel-go 0.27 behaviour)', () => {
    expect(evaluate("object.spec.containers[0].image.orValue('none')")).toBe('nginx:1');
    expect(evaluate("object.spec.?missing.orValue('none')")).toBe('none');
  });

  it('compares optional values', () => {
    const policy = validatingPolicy('p', { validations: [{ expression: 'object.metadata.?labels.?a == object.metadata.?labels.?b' }] });
    const set = loadKubernetesPolicies([policy] as never);
    const allowed = (labels: Record<string, string>) => set.evaluate(toAdmissionInput(admissionReviewFor(podWith('nginx:1', { labels })))).allowed;
    expect([allowed({ a: 'x', b: 'x' }), allowed({}), allowed({ a: 'x' }), allowed({ a: 'x', b: 'y' })]).toEqual([true, true, false, false]);
  });
});
