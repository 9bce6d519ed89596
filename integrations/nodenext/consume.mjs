// Loads the ES module build and evaluates a policy.
import assert from 'node:assert/strict';
import { compilePolicies, parsePolicyDocuments, PolicyLoadError } from '@verdict/core';

const set = compilePolicies(parsePolicyDocuments(`
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: limit}
spec:
  validate: [{name: r, rule: {"<=": [{quantity: {var: object.memory}}, {quantity: "1Gi"}]}, message: too big}]
`));
assert.equal(set.evaluate({ object: { memory: '512Mi' } }).allowed, true);
assert.equal(set.evaluate({ object: { memory: '2Gi' } }).allowed, false);
assert.throws(() => compilePolicies([{ kind: 'Nope' }]), PolicyLoadError);
console.log('esm ok');
