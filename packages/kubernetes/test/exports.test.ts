import { describe, expect, it } from 'vitest';
import { VerdictError } from '@verdict/core';
import * as kubernetes from '@verdict/kubernetes';

describe('public API', () => {
  it('exports exactly the documented values', () => {
    expect(Object.keys(kubernetes).sort()).toEqual([
      'AdmissionError', 'DEFAULT_MAX_BODY_BYTES', 'FAILED_OPEN_ANNOTATION', 'HTTP_STATUS', 'InventoryCache', 'MUTATION_TARGET', 'NAMESPACE_NAME_LABEL', 'NamespaceCache',
      'ParamCache', 'VALIDATION_FAILURE_ANNOTATION', 'admissionReviewFor', 'applyApiServerDefaults', 'createAdmissionWebhook', 'kubernetesDialect', 'loadKubernetesPolicies', 'mutatingPolicyResults', 'toAdmissionInput',
      'toAdmissionResponse',
      'validatingPolicyResults', 'verifyAdmissionResponse',
    ]);
  });

  it('has documented constants', () => {
    expect(kubernetes.MUTATION_TARGET).toBe('/object');
    expect(kubernetes.NAMESPACE_NAME_LABEL).toBe('kubernetes.io/metadata.name');
    expect(kubernetes.DEFAULT_MAX_BODY_BYTES).toBe(6 * 1024 * 1024);
    expect(kubernetes.FAILED_OPEN_ANNOTATION).toBe('failed-open');
    expect(kubernetes.VALIDATION_FAILURE_ANNOTATION).toBe('validation_failure');
  });

  it('AdmissionError is a VerdictError with a code, a path and a stable JSON form', () => {
    const error = kubernetes.AdmissionError.invalidReview('request.uid must be a non-empty string', '/request/uid');
    expect(error).toBeInstanceOf(VerdictError);
    expect(error.name).toBe('AdmissionError');
    expect(error.toJSON()).toEqual({ code: 'INVALID_REVIEW', message: 'request.uid must be a non-empty string', path: '/request/uid' });
  });

  it('the dialect owns the Gatekeeper, webhook and MatchResources match keys', () => {
    expect(kubernetes.kubernetesDialect.name).toBe('kubernetes');
    expect([...kubernetes.kubernetesDialect.keys].sort()).toEqual(
      ['excludeResourceRules', 'excludedNamespaces', 'kinds', 'labelSelector', 'matchPolicy', 'name', 'namespace', 'namespaceSelector', 'namespaces', 'objectSelector', 'resourceRules', 'rules', 'scope', 'source'],
    );
  });
});
