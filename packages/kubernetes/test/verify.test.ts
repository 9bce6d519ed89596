import { describe, expect, it } from 'vitest';
import { verifyAdmissionResponse } from '@verdict/kubernetes';

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');

function setup(response: Record<string, unknown>, envelope: Record<string, unknown> = {}) {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u', allowed: true, ...response }, ...envelope };
}

describe('verifyAdmissionResponse (the kube-apiserver\'s checks)', () => {
  it('accepts a valid validating and a valid mutating response', () => {
    expect(verifyAdmissionResponse(setup({ warnings: ['careful'], auditAnnotations: { policy: 'x' } }), { uid: 'u' })).toEqual([]);
    expect(verifyAdmissionResponse(setup({ patchType: 'JSONPatch', patch: b64([{ op: 'add', path: '/a', value: 1 }]) }), { uid: 'u', mutating: true, object: {} })).toEqual([]);
    expect(verifyAdmissionResponse(setup({ allowed: false, status: { code: 403, message: 'no' } }), { uid: 'u' })).toEqual([]);
  });

  it.each([
    ['an absent response', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, {}, 'webhook response was absent'],
    ['another uid', setup({ uid: 'other' }), {}, 'expected response.uid="u", got "other"'],
    ['no apiVersion/kind', { response: { uid: 'u', allowed: true } }, {}, 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got , Kind='],
    ['a v1beta1 envelope', setup({}, { apiVersion: 'admission.k8s.io/v1beta1' }), {}, 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview'],
    ['no allowed', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u' } }, {}, 'response.allowed is missing (the apiserver reads it as false)'],
    ['a patch without patchType', setup({ patch: b64([]) }), { mutating: true }, 'webhook returned response.patch but not response.patchType'],
    ['a patchType without patch', setup({ patchType: 'JSONPatch' }), { mutating: true }, 'webhook returned response.patchType but not response.patch'],
    ['an empty patchType', setup({ patchType: '', patch: b64([]) }), { mutating: true }, 'webhook returned invalid response.patchType ""'],
    ['a merge patch', setup({ patchType: 'MergePatch', patch: b64({}) }), { mutating: true }, 'response.patchType "MergePatch" is not supported (only JSONPatch)'],
    ['bad base64', setup({ patchType: 'JSONPatch', patch: 'not base64!' }), { mutating: true }, 'response.patch is not standard base64 (with padding)'],
    ['a patch that is not a list', setup({ patchType: 'JSONPatch', patch: b64({ op: 'add' }) }), { mutating: true }, 'response.patch must be a JSON Patch array (got an object)'],
    ['a bad operation', setup({ patchType: 'JSONPatch', patch: b64([{ op: 'merge', path: '/a' }]) }), { mutating: true }, 'response.patch[0] is not an RFC 6902 operation'],
    ['a patch for a DELETE', setup({ patchType: 'JSONPatch', patch: b64([{ op: 'remove', path: '/a' }]) }), { mutating: true, object: null }, 'response.patch is not empty but the request has no object to patch (e.g. DELETE)'],
    ['a patch from a validating webhook', setup({ patch: b64([]) }), {}, 'validating webhook may not return response.patch'],
    ['a patchType from a validating webhook', setup({ patchType: 'JSONPatch' }), {}, 'validating webhook may not return response.patchType'],
    ['a denial with code 200', setup({ allowed: false, status: { code: 200 } }), {}, 'response.status.code 200 on a denial is replaced by 400 by the apiserver'],
    ['an empty warning', setup({ warnings: [''] }), {}, 'response.warnings[0] is empty (the apiserver drops it)'],
    ['a warning with a newline', setup({ warnings: ['a\nb'] }), {}, 'response.warnings[0] contains control characters or invalid UTF-8 (the apiserver drops it)'],
    ['a repeated warning', setup({ warnings: ['a', 'a'] }), {}, 'response.warnings[1] repeats an earlier warning (the apiserver drops it)'],
    ['a long warning', setup({ warnings: ['w'.repeat(300)] }), {}, 'response.warnings[0] is 300 characters long; warnings over 256 characters may be truncated'],
    ['an annotation key with a slash', setup({ auditAnnotations: { 'a/b': 'x' } }), {}, 'response.auditAnnotations key "a/b" is not a qualified name without "/" (≤63 characters of letters, digits, "-", "_", "."); the apiserver drops it'],
    ['an annotation that is not a string', setup({ auditAnnotations: { a: 1 } }), {}, 'response.auditAnnotations["a"] must be a string (got a number); the response cannot be decoded'],
  ])('reports %s', (_what, review, options, problem) => {
    expect(verifyAdmissionResponse(review, { uid: 'u', ...options })).toContain(problem);
  });

  it('reports warnings past the 4096-character budget and an invalid webhook name', () => {
    const many = setup({ warnings: Array.from({ length: 20 }, (_, i) => `${i}${'w'.repeat(250)}`), auditAnnotations: { a: 'b' } });
    const problems = verifyAdmissionResponse(many, { uid: 'u', webhookName: 'Not_A_DNS_Name' });
    expect(problems).toContain('response.warnings total 5030 characters; past 4096 the apiserver truncates and drops warnings');
    expect(problems).toContain('webhook name "Not_A_DNS_Name" is not a DNS subdomain, so every audit annotation would be dropped');
  });
});
