// Loads the CommonJS build and evaluates a policy.
const assert = require('node:assert/strict');
const { compilePolicies, parsePolicyDocuments, PolicyLoadError } = require('@verdict/core');

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
console.log('cjs ok');
