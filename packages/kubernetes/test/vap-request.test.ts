import { describe, expect, it } from 'vitest';
import { admissionReviewFor, loadKubernetesPolicies, toAdmissionInput } from '@verdict/kubernetes';
import { ADMISSION_PARTIAL_ROOTS, admissionActivation, celRequest } from '../src/vap/activation.js';
import { binding, deployment, policy } from './vap-helpers.js';

const FIELDS = ['uid', 'kind', 'resource', 'requestKind', 'requestResource', 'operation', 'userInfo', 'dryRun', 'options', 'subResource', 'requestSubResource', 'name', 'namespace'];

/** Inputs with absent, empty, mistyped and prototype-named fields (what a hostile or odd caller may hand over). */
function oddInputs(): Record<string, unknown>[] {
  return [
    {},
    { uid: 5, kind: 'Pod', resource: [], operation: null, userInfo: [], dryRun: 'true', options: [], subResource: [], requestSubResource: '', name: '', namespace: null },
    { operation: 'DELETE', userInfo: { username: '', uid: null, groups: [], extra: {} }, requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' }, name: 0, namespace: 'ns' },
    { operation: 'CREATE', userInfo: { username: 'alice', groups: ['a'], extra: { k: ['v'] } }, options: { dryRun: ['All'] }, dryRun: true, subResource: 'status' },
    JSON.parse('{"__proto__": {"polluted": true}, "constructor": "x", "operation": "UPDATE", "userInfo": {"__proto__": {"username": "root"}}}') as Record<string, unknown>,
  ];
}

function setup() {
  const partial = (input: Record<string, unknown>, fields: readonly string[]) => ADMISSION_PARTIAL_ROOTS.request(admissionActivation(input, null), fields) as Record<string, unknown>;
  /** A ValidatingAdmissionPolicy whose validations must all hold, evaluated on an input as given. */
  const holds = (validations: string[], input: Record<string, unknown>) => {
    const set = loadKubernetesPolicies([policy('p.example.com', { validations: validations.map((expression) => ({ expression })) }), binding('b.example.com', 'p.example.com')] as never);
    return set.evaluate(input).violations.map((v) => v.message);
  };
  const input = () => toAdmissionInput(admissionReviewFor(deployment(), { userInfo: { username: 'alice', groups: ['dev'] } })) as unknown as Record<string, unknown>;
  return { partial, holds, input };
}

describe("the CEL request built with only the fields an expression reads", () => {
  it('gives every field, present or absent, exactly as the whole request has it, for odd inputs too', () => {
    const { partial } = setup();
    for (const input of oddInputs()) {
      const whole = celRequest(input);
      for (const field of [...FIELDS, 'constructor', '__proto__', 'toString', 'object']) {
        const part = partial(input, [field]);
        expect(Object.hasOwn(part, field), `${field} of ${JSON.stringify(input)}`).toBe(Object.hasOwn(whole, field));
        expect(Object.hasOwn(part, field) ? part[field] : undefined).toEqual(Object.hasOwn(whole, field) ? whole[field] : undefined);
        expect(Object.keys(part)).toEqual(Object.hasOwn(whole, field) ? [field] : []);
      }
      expect(partial(input, FIELDS)).toEqual(whole);
    }
  });

  it('does not read input fields the expression does not ask for', () => {
    const { partial } = setup();
    const reads: string[] = [];
    const input = new Proxy({ operation: 'CREATE', userInfo: { username: 'u' } }, {
      get: (target, key, receiver) => {
        reads.push(String(key));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    expect(partial(input, ['operation'])).toEqual({ operation: 'CREATE' });
    expect(reads).toEqual(['operation']);
  });

  it('gives CEL the same values through a field read as through the whole request', () => {
    const { holds, input } = setup();
    const same = FIELDS.map((f) => `(has(request.${f}) ? [request.${f}] : []) == [request].map(r, has(r.${f}) ? [r.${f}] : [])[0]`);
    expect(holds(same, input())).toEqual([]);
    const deleting = { ...input(), operation: 'DELETE', name: '', subResource: 'status', userInfo: {} };
    expect(holds(same, deleting)).toEqual([]);
    expect(holds(["request.operation == 'CREATE'", "request.userInfo.username == 'alice'", "!has(request.subResource)"], input())).toEqual([]);
    expect(holds(["request.operation == 'UPDATE'"], input())).toEqual(['failed expression: request.operation == \'UPDATE\'']);
  });

  it('keeps the whole request for expressions that iterate it or read it by a computed key', () => {
    const { holds, input } = setup();
    const iterated = ["request.exists(k, k == 'userInfo')", "request.filter(k, k.startsWith('request')).size() == 2", "request.size() == 11", "request['oper' + 'ation'] == 'CREATE'"];
    expect(holds(iterated, input())).toEqual([]);
  });

  it('reads userInfo of the input only when an expression reads request.userInfo', () => {
    const { holds, input } = setup();
    let reads = 0;
    const counted = (): Record<string, unknown> => {
      const base = input();
      const user = base['userInfo'];
      Object.defineProperty(base, 'userInfo', { enumerable: true, get: () => (reads++, user) });
      return base;
    };
    expect(holds(["request.operation == 'CREATE'"], counted())).toEqual([]);
    expect(reads).toBe(0);
    expect(holds(["request.userInfo.username == 'alice'"], counted())).toEqual([]);
    expect(reads).toBeGreaterThan(0);
  });
});
