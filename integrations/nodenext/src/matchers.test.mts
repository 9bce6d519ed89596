// The matchers as a user's test file uses them: registered by one import, typed on vitest's expect.
import '@verdict/testing/vitest';
import { describe, expect, it } from 'vitest';
import { compilePolicies, parsePolicyDocuments } from '@verdict/core';
import { evaluateInput } from '@verdict/testing';
import { admissionReviewFor } from '@verdict/testing/kubernetes';
import { LIMIT, POD } from './policies.mjs';

describe('the vitest matchers in a NodeNext project', () => {
  it('are typed on expect and assert on decisions and admission answers', async () => {
    const policies = compilePolicies(parsePolicyDocuments(LIMIT));
    expect(policies.evaluate({ object: { memory: '2Gi' } })).toBeDenied('too big');
    expect(policies.evaluate({ object: { memory: '1Mi' } })).toBeAllowed();
    expect(policies.evaluate({ object: { memory: '1Mi' } })).not.toWarn();
    const review = admissionReviewFor({ ...POD, metadata: { ...POD.metadata, annotations: { memory: '2Gi' } } });
    expect(await evaluateInput(LIMIT.replace('object.memory', 'object.metadata.annotations.memory'), review)).toBeDenied(/too big/);
  });
});
