// No import of '@verdict/testing/vitest' here: vitest.config.mjs registers it in setupFiles, and
// tsconfig's "types" names it, which is all the matchers' types need.
import { describe, expect, it } from 'vitest';
import { evaluateInput } from '@verdict/testing';
import { admissionReviewFor } from '@verdict/testing/kubernetes';
import { POLICIES, pod } from './policies.js';

const kubernetes = { namespaces: { shop: { team: 'web' }, training: { team: 'ml' } } };

describe('matchers registered by setupFiles alone', () => {
  it('are typed and assert on admission answers', async () => {
    expect(await evaluateInput(POLICIES, admissionReviewFor(pod('shop', '32Gi')), { kubernetes })).toBeDenied(/at most 16Gi/);
    expect(await evaluateInput(POLICIES, pod('training', '32Gi'), { kubernetes })).toBeAllowed();
    expect(await evaluateInput(POLICIES, pod('training', '32Gi'), { kubernetes })).toSelectParameters('memory-limit-enforcement', { limit: '64Gi' });
  });
});
