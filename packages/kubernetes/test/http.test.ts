import { describe, expect, it } from 'vitest';
import { admissionReviewFor, createAdmissionWebhook, HTTP_STATUS, verifyAdmissionResponse, type AdmissionReviewResponse } from '@verdict/kubernetes';
import { reviewJson } from '../src/http.js';
import { pod } from './helpers.js';

const denyPods = {
  apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'no-pods' },
  spec: { match: { kinds: [{ kinds: ['Pod'] }] }, validate: [{ name: 'no', rule: false, message: 'no pods in {{namespace}}' }] },
};

function setup(options: { maxBodyBytes?: number } = {}) {
  const webhook = createAdmissionWebhook({ policies: [denyPods], ...options });
  const post = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
    webhook.handle(new Request('https://webhook.local/validate', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }));
  const status = async (response: Response) => ({ code: response.status, body: (await response.json()) as { message: string; reason: string; details: { causes: Array<{ reason: string; field?: string }> } } });
  return { webhook, post, status };
}

describe('handle: a Fetch-API handler', () => {
  it('answers a POSTed AdmissionReview with 200 and the response AdmissionReview as JSON', async () => {
    const { post } = setup();
    const review = admissionReviewFor(pod({ namespace: 'team-a' }));
    const response = await post(JSON.stringify(review));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const answer = (await response.json()) as AdmissionReviewResponse;
    expect(verifyAdmissionResponse(answer, { uid: review.request.uid })).toEqual([]);
    expect(answer.response.status?.message).toBe('[no-pods] no pods in team-a');
  });

  it('refuses other methods with 405 and an Allow header', async () => {
    const { webhook, status } = setup();
    const response = await webhook.handle(new Request('https://webhook.local/validate'));
    expect(response.headers.get('allow')).toBe('POST');
    expect(await status(response)).toMatchObject({ code: 405, body: { reason: 'MethodNotAllowed', message: 'admission webhooks are called with POST (got GET)' } });
  });

  it.each([
    ['not JSON', 'hello', 'NOT_JSON', /^the body is not JSON \(.*\); expected an AdmissionReview$/],
    ['empty', '', 'NOT_JSON', /^the body is empty; expected a JSON AdmissionReview$/],
    ['a JSON list', '[]', 'INVALID_REVIEW', /^expected an AdmissionReview object \(got a list\)$/],
    ['another kind', '{"apiVersion":"admission.k8s.io/v1","kind":"Pod"}', 'INVALID_REVIEW', /^expected apiVersion "admission.k8s.io\/v1" and kind "AdmissionReview" \(got apiVersion "admission.k8s.io\/v1", kind "Pod"\); pass the AdmissionReview/],
    ['a v1beta1 review', '{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}}', 'UNSUPPORTED_VERSION', /^apiVersion "admission.k8s.io\/v1beta1" is not supported; expected "admission.k8s.io\/v1" \(set admissionReviewVersions: \["v1"\]/],
    ['a response instead of a request', '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x","allowed":true}}', 'INVALID_REVIEW', /^request must be an object \(got nothing\)/],
  ])('answers a body that is %s with 400 and a Status saying why', async (_what, body, code, message) => {
    const { post, status } = setup();
    const { code: http, body: json } = await status(await post(body));
    expect(http).toBe(400);
    expect(json.reason).toBe('BadRequest');
    expect(json.message).toMatch(message);
    expect(json.details.causes[0]!.reason).toBe(code);
  });

  it('points at the offending field of a malformed request', async () => {
    const { post, status } = setup();
    const review = admissionReviewFor(pod({ namespace: 'a' }));
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ uid: '' }, '/request/uid', /^request.uid must be a non-empty string/],
      [{ operation: 'PATCH' }, '/request/operation', /^request.operation must be one of CREATE, UPDATE, DELETE, CONNECT \(got "PATCH"\)/],
      [{ operation: 'create' }, '/request/operation', /did you mean "CREATE"\?$/],
      [{ object: 'a pod' }, '/request/object', /^request.object must be an object or null \(got a string\)$/],
      [{ kind: { group: '', version: 'v1' } }, '/request/kind/kind', /^request.kind.kind must be a non-empty string/],
      [{ namespace: 7 }, '/request/namespace', /^request.namespace must be a string \(got a number\)$/],
      [{ dryRun: 'false' }, '/request/dryRun', /^request.dryRun must be a boolean/],
      [{ userInfo: { groups: 'admins' } }, '/request/userInfo/groups', /^request.userInfo.groups must be a list of strings$/],
    ];
    for (const [patch, field, message] of cases) {
      const { code, body } = await status(await post(JSON.stringify({ ...review, request: { ...review.request, ...patch } })));
      expect(code).toBe(400);
      expect(body.details.causes[0]!.field).toBe(field);
      expect(body.message).toMatch(message);
    }
  });

  it('answers bodies that are not UTF-8 with 400', async () => {
    const { post, status } = setup();
    expect(await status(await post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])))).toMatchObject({ code: 400, body: { details: { causes: [{ reason: 'NOT_JSON' }] } } });
  });

  it('refuses bodies over maxBodyBytes by their Content-Length, and while reading when it is absent', async () => {
    const { post, status } = setup({ maxBodyBytes: 1000 });
    const big = JSON.stringify(admissionReviewFor(pod({ namespace: 'a', labels: { filler: 'x'.repeat(60) } }), { userInfo: { username: 'u', groups: Array(50).fill('system:authenticated') } }));
    expect(await status(await post(big))).toMatchObject({ code: 400, body: { details: { causes: [{ reason: 'TOO_LARGE' }] } } });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new TextEncoder().encode('x'.repeat(512)));
      },
    });
    const { webhook } = setup({ maxBodyBytes: 1000 });
    const response = await webhook.handle(new Request('https://webhook.local/', { method: 'POST', body: endless, duplex: 'half' } as RequestInit));
    expect(await status(response)).toMatchObject({ code: 400, body: { message: 'the body is larger than the limit of 1000 bytes (maxBodyBytes)' } });
    expect(pulled).toBeLessThan(10);
  });

  it('is not polluted by __proto__ keys and answers them normally', async () => {
    const { post } = setup();
    const review = admissionReviewFor(pod({ namespace: 'a' }));
    const text = JSON.stringify(review).replace('"metadata":{', '"metadata":{"__proto__":{"polluted":true},"labels":{"__proto__":"x"},');
    const response = await post(text);
    expect(response.status).toBe(200);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const answer = (await response.json()) as AdmissionReviewResponse;
    expect(verifyAdmissionResponse(answer, { uid: review.request.uid })).toEqual([]);
    expect(answer.response.allowed).toBe(false);
  });

  it('survives deeply nested objects', async () => {
    const { post } = setup();
    const review = admissionReviewFor(pod({ namespace: 'a' }));
    const text = JSON.stringify(review).replace('"spec":{', `"deep":${'['.repeat(20_000)}${']'.repeat(20_000)},"spec":{`);
    const response = await post(text);
    expect([200, 400]).toContain(response.status);
    if (response.status === 200) expect(verifyAdmissionResponse(await response.json(), { uid: review.request.uid })).toEqual([]);
  });

  it('maps every error code to an HTTP status', () => {
    expect(HTTP_STATUS).toEqual({ NOT_JSON: 400, INVALID_REVIEW: 400, UNSUPPORTED_VERSION: 400, TOO_LARGE: 400, METHOD_NOT_ALLOWED: 405, INVALID_OPTIONS: 500, LOOKUP_FAILED: 500 });
  });

  it('writes every answer as the same text JSON.stringify gives, the usual allowed answer included', () => {
    const wrap = (response: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response, ...extra }) as unknown as AdmissionReviewResponse;
    const answers = [
      wrap({ uid: 'plain', allowed: true }),
      wrap({ uid: 'quote " backslash \\ line\u2028 lone \ud800 pair \ud83d\udeab', allowed: true }),
      wrap({ allowed: true, uid: 'other order' }),
      wrap({ uid: 'x', allowed: true, warnings: ['w'] }),
      wrap({ uid: 'x', allowed: true, status: undefined }),
      wrap({ uid: 'x', allowed: false, status: { code: 403, message: 'no' } }),
      wrap({ uid: 'x', allowed: true }, { extra: 1 }),
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', response: { uid: 'x', allowed: true } } as unknown as AdmissionReviewResponse,
      wrap(Object.assign(Object.create({ inherited: 1 }) as object, { uid: 'x', allowed: true })),
    ];
    for (const answer of answers) expect(reviewJson(answer)).toBe(JSON.stringify(answer));
  });
});
