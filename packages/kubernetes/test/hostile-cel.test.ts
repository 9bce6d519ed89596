/**
 * An attacker's trial of CEL policies: plausible policies of every dialect (ValidatingAdmissionPolicy with
 * params and variables, MutatingAdmissionPolicy with ApplyConfiguration and JSONPatch, a Gatekeeper CEL
 * template, Kyverno ValidatingPolicy and MutatingPolicy, verdict's own CEL rules, `compileCel`), each
 * attacked with objects built to make it slow, big or deep: 100,000 labels, 20,000 containers, 1-3 MB
 * strings, a huge oldObject, objects 10,000 and 100,000 levels deep. Each answer must be the true decision
 * or a cost-limit denial (never an allow caused by an internal error), within a time bound and at most
 * 200 MB of memory growth, through `review()` and through the Node listener on a real HTTP server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCel, parsePolicyDocuments } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, type AdmissionReview, type AdmissionReviewResponse, type AdmissionWebhookOptions, type KubernetesObject } from '@verdict/kubernetes';
import { jsonText } from '../src/json-text.js';
import { applyPatch } from './helpers.js';

/**
 * Generous, so that a loaded machine does not fail it: the bar is 1 s per review on an idle machine (the
 * attacks before the fixes took 30 to 67 s, or failed by a stack overflow). The answers are the real check.
 */
const TIME_BOUND_MS = 8_000;
const MEMORY_BOUND = 200 * 1024 * 1024;

const V1 = 'admissionregistration.k8s.io/v1';
const V1BETA1 = 'admissionregistration.k8s.io/v1beta1';
const PODS = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }] };

// ---------- hostile objects ----------
const labels = (n: number, extra: Record<string, string> = {}) => ({ ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, `v${i}`])), ...extra });
const containers = (n: number, image = (i: number) => `registry.example.com/app${i}:1.0`) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: image(i) }));
/** Wrappers around the leaf that make a Pod `spec: {x: …}` nest 10,000 levels, the most the API server accepts. */
const API_DEPTH = 9_997;
function nested(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let o: Record<string, unknown> = { leaf };
  for (let i = 0; i < depth; i++) o = { x: o };
  return o;
}
const MB = 1024 * 1024;
function pod(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubernetesObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default', ...metadata }, spec: { containers: containers(1), ...spec } };
}

// ---------- dialects ----------
function vap(validations: unknown[], spec: Record<string, unknown> = {}, bindingSpec: Record<string, unknown> = {}): unknown[] {
  return [
    { apiVersion: V1, kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec: { failurePolicy: 'Fail', matchConstraints: PODS, validations, ...spec } },
    { apiVersion: V1, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'], ...bindingSpec } },
  ];
}
function map(mutations: Array<{ patch: string } | { apply: string }>, spec: Record<string, unknown> = {}): unknown[] {
  return [
    {
      apiVersion: V1BETA1, kind: 'MutatingAdmissionPolicy', metadata: { name: 'm' },
      spec: {
        failurePolicy: 'Fail', matchConstraints: PODS, reinvocationPolicy: 'Never', ...spec,
        mutations: mutations.map((m) => ('patch' in m ? { patchType: 'JSONPatch', jsonPatch: { expression: m.patch } } : { patchType: 'ApplyConfiguration', applyConfiguration: { expression: m.apply } })),
      },
    },
    { apiVersion: V1BETA1, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'm' }, spec: { policyName: 'm' } },
  ];
}
function gatekeeper(validations: unknown[], parameters: Record<string, unknown>, variables: unknown[] = []): unknown[] {
  return [
    {
      apiVersion: 'templates.gatekeeper.sh/v1', kind: 'ConstraintTemplate', metadata: { name: 'k8sallowedannotations' },
      spec: {
        crd: { spec: { names: { kind: 'K8sAllowedAnnotations' }, validation: { openAPIV3Schema: { type: 'object', properties: { allowed: { type: 'array', items: { type: 'string' } }, pattern: { type: 'string' } } } } } },
        targets: [{ target: 'admission.k8s.gatekeeper.sh', code: [{ engine: 'K8sNativeValidation', source: { variables, validations } }] }],
      },
    },
    { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind: 'K8sAllowedAnnotations', metadata: { name: 'annotations' }, spec: { match: { kinds: [{ apiGroups: [''], kinds: ['Pod'] }] }, parameters } },
  ];
}
function kyvernoValidating(spec: Record<string, unknown>): unknown[] {
  return [{ apiVersion: 'policies.kyverno.io/v1', kind: 'ValidatingPolicy', metadata: { name: 'kv' }, spec: { matchConstraints: PODS, validationActions: ['Deny'], ...spec } }];
}
function kyvernoMutating(mutations: unknown[]): unknown[] {
  return [{ apiVersion: 'policies.kyverno.io/v1', kind: 'MutatingPolicy', metadata: { name: 'km' }, spec: { matchConstraints: PODS, mutations } }];
}
function verdictPolicy(yaml: string): unknown[] {
  return parsePolicyDocuments(yaml) as unknown[];
}

// ---------- the harness ----------
type Outcome = 'allowed' | 'denied' | 'cancelled' | 'budget';
interface Attack {
  /** What the policy checks and how the object attacks it. */
  name: string;
  documents: () => unknown[];
  options?: Partial<AdmissionWebhookOptions>;
  object: () => KubernetesObject;
  oldObject?: () => KubernetesObject;
  /** The true decision, or the cost-limit denial. */
  outcome: Outcome;
  /** Checks on the answer (the denial message, the patched object, applied as the API server would). */
  check?: (response: AdmissionReviewResponse['response'], patched: unknown) => void;
  /** The listener's HTTP status when it is not 200 (a body the API server could never send). */
  listenerStatus?: number;
}

function outcomeOf(response: AdmissionReviewResponse['response']): Outcome {
  if (response.allowed) return 'allowed';
  const message = response.status?.message ?? '';
  if (/operation cancelled: actual cost limit exceeded|running out of cost budget/.test(message)) return 'cancelled';
  if (/exceeded the cost budget/.test(message)) return 'budget';
  return 'denied';
}

interface Measured {
  ms: number;
  /** Resident and heap growth over the review, bytes (sampled right after it, before collection). */
  rss: number;
  heap: number;
}

function collect() {
  (globalThis as { gc?: () => void }).gc?.();
}

async function measured<T>(run: () => Promise<T>): Promise<[T, Measured]> {
  collect();
  const before = process.memoryUsage();
  const start = performance.now();
  const value = await run();
  const ms = performance.now() - start;
  const after = process.memoryUsage();
  return [value, { ms, rss: after.rss - before.rss, heap: after.heapUsed - before.heapUsed }];
}

function reviewOf(attack: Attack): AdmissionReview {
  const object = attack.object();
  return admissionReviewFor(object, attack.oldObject ? { operation: 'UPDATE', oldObject: attack.oldObject() } : {});
}

function webhookOf(attack: Attack) {
  const mutating = attack.documents().some((d) => /Mutating/.test(String((d as { kind?: string }).kind)));
  return { webhook: createAdmissionWebhook({ policies: attack.documents() as never, mutating, namespaceLabels: () => ({}), ...attack.options }), mutating };
}

const rows: string[] = [];
function expectBounded(attack: Attack, m: Measured, via: string) {
  rows.push(`| ${attack.name} | ${via} | ${attack.outcome} | ${m.ms.toFixed(0)} ms | ${(m.rss / MB).toFixed(0)} MB | ${(m.heap / MB).toFixed(0)} MB |`);
  expect(m.ms, `${attack.name} (${via}) took ${m.ms.toFixed(0)} ms`).toBeLessThan(TIME_BOUND_MS);
  expect(m.rss, `${attack.name} (${via}) grew RSS by ${(m.rss / MB).toFixed(0)} MB`).toBeLessThan(MEMORY_BOUND);
  expect(m.heap, `${attack.name} (${via}) grew the heap by ${(m.heap / MB).toFixed(0)} MB`).toBeLessThan(MEMORY_BOUND);
}

function checkAnswer(attack: Attack, review: AdmissionReview, answer: AdmissionReviewResponse) {
  const { response } = answer;
  expect(response.uid).toBe(review.request.uid);
  expect(outcomeOf(response), response.status?.message).toBe(attack.outcome);
  // Never an answer made by an internal failure: a denial is the policy's (403 or 422), only the budget is a 500.
  expect(response.status?.message ?? '').not.toMatch(/call stack|RangeError|TypeError|internal error/);
  if (attack.outcome === 'denied' || attack.outcome === 'cancelled') expect([403, 422]).toContain(response.status?.code);
  if (attack.outcome === 'budget') expect(response.status?.code).toBe(500);
  if (attack.check) attack.check(response, response.patch ? applyPatch(review.request.object, response.patch).patched : undefined);
}

// ---------- the attacks ----------
const ATTACKS: Attack[] = [
  {
    name: 'VAP with params: every label key is in the ConfigMap\'s allow-list; 100,000 labels',
    documents: () => [
      ...vap([{ expression: "object.metadata.labels.all(k, k in params.data.allowed.split(','))", messageExpression: "'label keys must be among ' + params.data.allowed" }],
        { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }, { paramRef: { name: 'labels', namespace: 'config', parameterNotFoundAction: 'Deny' } }),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'labels', namespace: 'config' }, data: { allowed: 'app,team,tier' } },
    ],
    object: () => pod({}, { labels: labels(100_000, { app: 'web' }) }),
    outcome: 'denied',
  },
  {
    name: 'VAP with params: allowed registries from the ConfigMap; 20,000 containers, 1 MB registry list',
    documents: () => [
      ...vap([{ expression: "object.spec.containers.all(c, params.data.registries.split(',').exists(r, c.image.startsWith(r + '/')))", message: 'untrusted registry' }],
        { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }, { paramRef: { name: 'registries', namespace: 'config', parameterNotFoundAction: 'Deny' } }),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'registries', namespace: 'config' }, data: { registries: `${'r,'.repeat(300_000)}registry.example.com` } },
    ],
    object: () => pod({ containers: containers(20_000) }),
    outcome: 'cancelled',
  },
  {
    name: 'VAP with params under failurePolicy Ignore: the same registries check cancelled past its limit admits, as the API server does',
    documents: () => [
      ...vap([{ expression: "object.spec.containers.all(c, params.data.registries.split(',').exists(r, c.image.startsWith(r + '/')))", message: 'untrusted registry' }],
        { failurePolicy: 'Ignore', paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }, { paramRef: { name: 'registries', namespace: 'config', parameterNotFoundAction: 'Deny' } }),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'registries', namespace: 'config' }, data: { registries: `${'r,'.repeat(300_000)}registry.example.com` } },
    ],
    object: () => pod({ containers: containers(20_000) }),
    outcome: 'allowed',
  },
  {
    name: 'VAP variables: joined images must not mention :latest; 20,000 containers with 100-character images',
    documents: () => vap([{ expression: "!variables.joined.contains(':latest')", message: 'no latest tags' }],
      { variables: [{ name: 'images', expression: 'object.spec.containers.map(c, c.image)' }, { name: 'joined', expression: "variables.images.join(',')" }] }),
    object: () => pod({ containers: containers(20_000, (i) => `registry.example.com/${'a'.repeat(80)}${i}:1.0`) }),
    outcome: 'allowed',
  },
  {
    name: 'VAP variables: an annotation grown by replace and + in a variable chain; 3 MB annotation',
    documents: () => vap([{ expression: "size(variables.c) < 100000000", message: 'too big' }],
      { variables: [{ name: 'a', expression: "object.metadata.annotations['note'].replace('a', 'aaaa')" }, { name: 'b', expression: 'variables.a + variables.a' }, { name: 'c', expression: 'variables.b + variables.b' }] }),
    object: () => pod({}, { annotations: { note: 'a'.repeat(3 * MB) } }),
    outcome: 'cancelled',
  },
  {
    name: 'VAP: format() of a 1 MB annotation three times',
    documents: () => vap([{ expression: "'%s/%s/%s'.format([object.metadata.annotations['a'], object.metadata.annotations['a'], object.metadata.annotations['a']]).size() < 10", message: 'too long' }]),
    object: () => pod({}, { annotations: { a: 'x'.repeat(MB) } }),
    outcome: 'denied',
  },
  {
    name: 'VAP: a catastrophic-backtracking regex against a 1 MB annotation',
    documents: () => vap([{ expression: "!object.metadata.annotations['a'].matches('^(a+)+$')", message: 'matched' }]),
    object: () => pod({}, { annotations: { a: `${'a'.repeat(MB)}!` } }),
    outcome: 'allowed',
  },
  {
    name: 'VAP: split, sort and dedupe annotation values with sets and lists; 1 MB comma list',
    documents: () => vap([{ expression: "sets.equivalent(object.metadata.annotations['teams'].split(','), ['a', 'b']) || object.metadata.annotations['teams'].split(',').sort().isSorted()", message: 'teams' }]),
    object: () => pod({}, { annotations: { teams: Array.from({ length: 200_000 }, (_, i) => `t${i % 1000}`).join(',') } }),
    outcome: 'cancelled',
  },
  {
    name: 'VAP: quantity, ip, cidr, url and semver parsers on 1 MB strings',
    documents: () => vap([
      { expression: "!isQuantity(object.metadata.annotations['q']) || quantity(object.metadata.annotations['q']).isLessThan(quantity('1Gi'))", message: 'q' },
      { expression: "!isIP(object.metadata.annotations['ip']) && !isCIDR(object.metadata.annotations['ip'])", message: 'ip' },
      { expression: "!isURL(object.metadata.annotations['url']) || url(object.metadata.annotations['url']).getHost() != 'evil'", message: 'url' },
      { expression: "!isSemver(object.metadata.annotations['v'])", message: 'semver' },
    ]),
    object: () => pod({}, { annotations: { q: `${'9'.repeat(MB)}Gi`, ip: `${'1.'.repeat(MB / 2)}1`, url: `https://${'a'.repeat(MB)}.example/`, v: `1.0.0-${'a.'.repeat(MB / 2)}a` } }),
    // verdict refuses quantities over 128 characters, URLs over 4,096 and semvers over 256: none parses.
    outcome: 'allowed',
  },
  {
    name: 'VAP: optional chains into an object nested 10,000 deep',
    documents: () => vap([{ expression: "object.spec.?x.?x.?x.?leaf.orValue(0) == 0 && !has(object.spec.x.x.x.x.x.leaf)", message: 'deep' }]),
    object: () => pod({ x: nested(API_DEPTH) }),
    outcome: 'allowed',
  },
  {
    name: 'VAP: two-variable all() and transformMap over 100,000 labels',
    documents: () => vap([
      { expression: "object.metadata.labels.all(k, v, !k.startsWith('kubernetes.io/') && size(v) <= 63)", message: 'reserved' },
      { expression: "size(object.metadata.labels.transformMap(k, v, v + v)) == size(object.metadata.labels)", message: 'transform' },
    ]),
    object: () => pod({}, { labels: labels(100_000) }),
    outcome: 'allowed',
  },
  {
    name: 'VAP UPDATE: annotations are immutable; 2.5 MB annotations in object and oldObject, 10,000 containers each',
    documents: () => vap([{ expression: "object.metadata.annotations == oldObject.metadata.annotations && object.spec.containers.all(c, c.image == oldObject.spec.containers[0].image)", message: 'immutable' }]),
    object: () => pod({ containers: containers(10_000, () => 'a') }, { annotations: { a: 'x'.repeat(2.5 * MB) } }),
    oldObject: () => pod({ containers: containers(10_000, () => 'a') }, { annotations: { a: 'x'.repeat(2.5 * MB) } }),
    outcome: 'allowed',
  },
  {
    name: 'VAP UPDATE: spec unchanged, 10,000 deep on both sides',
    documents: () => vap([{ expression: 'object.spec == oldObject.spec', message: 'spec is immutable' }]),
    object: () => pod({ x: nested(API_DEPTH) }),
    oldObject: () => pod({ x: nested(API_DEPTH, 2) }),
    outcome: 'denied',
  },
  {
    name: 'VAP UPDATE: spec unchanged, 100,000 deep on both sides (a body the listener refuses: 400)',
    documents: () => vap([{ expression: 'object.spec == oldObject.spec', message: 'spec is immutable' }]),
    object: () => pod({ x: nested(100_000) }),
    oldObject: () => pod({ x: nested(100_000) }),
    outcome: 'allowed',
    listenerStatus: 400,
  },
  {
    name: 'MAP ApplyConfiguration: copy every label with a suffix; 50,000 labels',
    documents: () => map([{ apply: "Object{metadata: Object.metadata{labels: object.metadata.labels.transformMap(k, v, v + '-copy')}}" }]),
    object: () => pod({}, { labels: labels(50_000) }),
    outcome: 'allowed',
    check: (_response, patched) => expect((patched as { metadata: { labels: Record<string, string> } }).metadata.labels['l49999']).toBe('v49999-copy'),
  },
  {
    name: 'MAP ApplyConfiguration: set a field to a copy of one nested 10,000 deep',
    documents: () => map([{ apply: 'Object{spec: Object.spec{copy: object.spec.x}}' }]),
    object: () => pod({ x: nested(API_DEPTH) }),
    outcome: 'allowed',
  },
  {
    name: 'MAP JSONPatch: an annotation per container; 15,000 containers',
    documents: () => map([{ patch: "object.spec.containers.map(c, JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey('image.' + c.name), value: c.image})" }]),
    object: () => pod({ containers: containers(15_000) }, { annotations: {} }),
    outcome: 'allowed',
    check: (_response, patched) => expect(Object.keys((patched as { metadata: { annotations: object } }).metadata.annotations)).toHaveLength(15_000),
  },
  {
    // The API server counts about 60 units per container (the step's list and `+`, the JSONPatch built, the path's parts):
    // over 20,000 containers the expression passes its 1,000,000 and is cancelled.
    name: 'MAP JSONPatch: an annotation per container; 20,000 containers',
    documents: () => map([{ patch: "object.spec.containers.map(c, JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey('image.' + c.name), value: c.image})" }]),
    object: () => pod({ containers: containers(20_000) }, { annotations: {} }),
    outcome: 'cancelled',
  },
  {
    name: 'MAP JSONPatch: add a copy of a field nested 10,000 deep (a stack overflow denied it)',
    documents: () => map([{ patch: "[JSONPatch{op: 'add', path: '/spec/copy', value: object.spec.x}]" }]),
    object: () => pod({ x: nested(API_DEPTH) }),
    outcome: 'allowed',
  },
  {
    name: 'MAP JSONPatch: thirty self-copies of the spec, each doubling it',
    documents: () => map([{ patch: `[${Array.from({ length: 30 }, (_, i) => `JSONPatch{op: 'copy', from: '/spec', path: '/spec/c${i}'}`).join(', ')}]` }]),
    object: () => pod({ containers: containers(100) }),
    outcome: 'budget',
  },
  {
    name: 'Gatekeeper CEL: annotation keys from the allowed list, message joins what is missing; 100,000 annotations',
    documents: () => gatekeeper([{
      expression: 'variables.keys.all(k, k in variables.params.allowed)',
      messageExpression: "'annotations not allowed: ' + variables.keys.filter(k, !(k in variables.params.allowed)).join(', ')",
    }], { allowed: ['owner'] }, [{ name: 'keys', expression: 'has(variables.anyObject.metadata.annotations) ? variables.anyObject.metadata.annotations.map(k, k) : []' }]),
    object: () => pod({}, { annotations: labels(100_000) }),
    outcome: 'denied',
    check: (response) => expect((response.status?.message ?? '').length).toBeLessThan(2 * MB),
  },
  {
    name: 'Kyverno ValidatingPolicy: images match a pattern, variables over 20,000 containers with 250-character images',
    documents: () => kyvernoValidating({
      variables: [{ name: 'images', expression: 'object.spec.containers.map(c, c.image)' }],
      validations: [{ expression: "variables.images.all(i, i.matches('^[a-z0-9.-]+(/[a-z0-9._-]+)+(:[A-Za-z0-9._-]+)?$'))", message: 'bad image' }],
    }),
    object: () => pod({ containers: containers(20_000, (i) => `registry.example.com/${'a'.repeat(220)}${i}:1`) }),
    outcome: 'allowed',
  },
  {
    name: 'Kyverno MutatingPolicy: copy a 2.5 MB annotation into another, doubled',
    documents: () => kyvernoMutating([{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{annotations: {'copy': object.metadata.annotations['a'] + object.metadata.annotations['a']}}}" } }]),
    object: () => pod({}, { annotations: { a: 'x'.repeat(2.5 * MB) } }),
    outcome: 'allowed',
  },
  {
    name: 'verdict Policy CEL rules: forEach container, image split and compared; 20,000 containers',
    documents: () => verdictPolicy(`
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: registries}
spec:
  match: {kinds: [{kinds: [Pod]}]}
  validate:
    - name: registry
      forEach: {cel: "object.spec.containers"}
      expression: "element.image.split('/')[0] in ['registry.example.com', 'mirror.example.com']"
      messageExpression: "'container ' + element.name + ' pulls from ' + element.image.split('/')[0]"
`),
    object: () => pod({ containers: containers(20_000, (i) => `evil.example.com/${'a'.repeat(100)}${i}`) }),
    outcome: 'denied',
  },
];

describe('plausible CEL policies against hostile objects, through review()', () => {
  for (const attack of ATTACKS) {
    it(`${attack.name}: ${attack.outcome}`, async () => {
      const { webhook } = webhookOf(attack);
      const review = reviewOf(attack);
      const [answer, m] = await measured(async () => webhook.review(review));
      checkAnswer(attack, review, answer);
      expectBounded(attack, m, 'review');
    });
  }
});

describe('the same attacks through the Node listener on a real HTTP server', () => {
  let server: Server | undefined;
  let url = '';
  let current: ReturnType<typeof webhookOf>['webhook'] | undefined;
  beforeAll(async () => {
    server = createServer((req, res) => current!.listener(req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
  }));

  for (const attack of ATTACKS) {
    it(`${attack.name}: ${attack.outcome}`, async () => {
      current = webhookOf(attack).webhook;
      const review = reviewOf(attack);
      const body = jsonText(review);
      const [answer, m] = await measured(async () => {
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(response.status).toBe(attack.listenerStatus ?? 200);
        return (await response.json()) as AdmissionReviewResponse;
      });
      if (attack.listenerStatus === undefined) checkAnswer(attack, review, answer);
      else expect(JSON.stringify(answer)).toMatch(/more than 10000 levels deep/);
      expectBounded(attack, m, 'listener');
    });
  }

  afterAll(() => {
    if (process.env['HOSTILE_CEL_TABLE']) console.log(rows.join('\n'));
  });
});

describe('compileCel directly, with its budget: each hostile input gets its value or BUDGET_EXCEEDED', () => {
  const budget = 1_000_000;
  // [what, expression, variables, value or error code]; cel.bind is verdict's own CEL (kubernetesVersion: false), not Kubernetes'.
  const cases: Array<[string, string, () => Record<string, unknown>, unknown]> = [
    ['a map `in` over 100,000 keys', "'team' in m", () => ({ m: labels(100_000) }), false],
    ['string doubling through cel.bind over 1 MB', 'cel.bind(a, s + s, cel.bind(b, a + a, cel.bind(c, b + b, size(c + c) > 0)))', () => ({ s: 'a'.repeat(MB) }), 'BUDGET_EXCEEDED'],
    // The API server's units: split and join scan twice what they read and build (629,150 units): within the budget.
    ['join of a split 1 MB string', "s.split('').join('-').size() > 0", () => ({ s: 'a'.repeat(MB) }), true],
    ['join of a split 2 MB string', "s.split('').join('-').size() > 0", () => ({ s: 'a'.repeat(2 * MB) }), 'BUDGET_EXCEEDED'],
    ['replace growing a 100 KB string fourfold', "s.replace('a', 'aaaa').size()", () => ({ s: 'a'.repeat(100_000) }), 400_000],
    ['sets.intersects of two 5,000-element lists (the product is charged)', 'sets.intersects(l, r)', () => ({ l: Array.from({ length: 5_000 }, (_, i) => `a${i}`), r: Array.from({ length: 5_000 }, (_, i) => `b${i}`) }), 'BUDGET_EXCEEDED'],
    // cel-go charges a sort n² comparisons, twice and a tenth (5.25 billion units here; 600 strings are 756,013).
    ['sort of 50,000 strings', 'l.sort().size()', () => ({ l: Array.from({ length: 50_000 }, (_, i) => `v${50_000 - i}`) }), 'BUDGET_EXCEEDED'],
    ['sort of 600 strings', 'l.sort()[0]', () => ({ l: Array.from({ length: 600 }, (_, i) => `v${1_000 - i}`) }), 'v1000'],
    ['a backtracking-prone regex over 1 MB (linear, charged 3 units per 10 characters)', "s.matches('^(a|aa)+$')", () => ({ s: `${'a'.repeat(MB)}!` }), false],
    ['the same regex over 4 MB', "s.matches('^(a|aa)+$')", () => ({ s: `${'a'.repeat(4 * MB)}!` }), 'BUDGET_EXCEEDED'],
    ['equality of objects nested 100,000 deep', 'a == b', () => ({ a: nested(100_000), b: nested(100_000) }), true],
    ['two-variable exists over 100,000 keys', "m.exists(k, v, v == 'v99999')", () => ({ m: labels(100_000) }), true],
  ];
  for (const [name, expression, variables, expected] of cases) {
    it(`${name}: ${String(expected)}`, async () => {
      const compiled = compileCel(expression, { budget, ...(expression.includes('cel.bind') ? { kubernetesVersion: false as const } : {}) });
      const input = variables();
      const [outcome, m] = await measured(async () => {
        try {
          return compiled.evaluate(input);
        } catch (error) {
          return (error as { code?: string }).code ?? error;
        }
      });
      expect(outcome).toEqual(expected);
      expect(m.ms).toBeLessThan(TIME_BOUND_MS);
      expect(m.heap).toBeLessThan(MEMORY_BOUND);
    });
  }
});
