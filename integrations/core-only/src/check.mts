// Installed: @verdict/core and @verdict/testing only. No adapter comes with them, testing's
// main entry types and runs without one, and an input that needs an adapter says which to install.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { evaluateInput, SuiteError } from '@verdict/testing';

const installed = readdirSync('node_modules/@verdict').sort();
assert.deepEqual(installed, ['core', 'testing'], `expected only core and testing under node_modules/@verdict, found ${installed.join(', ')}`);
for (const adapterOnly of ['@redis/client', 'lz4-napi', 'vitest']) assert.equal(existsSync(`node_modules/${adapterOnly}`), false, `${adapterOnly} is installed`);

const policy = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: size}
spec:
  validate: [{name: small, rule: {"<=": [{var: size}, 10]}, message: "size {{size}} is over 10"}]
`;
assert.deepEqual((await evaluateInput(policy, { size: 30 })).denials, ['[size] size 30 is over 10']);
assert.equal((await evaluateInput(policy, { size: 3 })).allowed, true);

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' } };
await assert.rejects(evaluateInput(policy, pod), (error: unknown) => {
  assert.ok(error instanceof SuiteError);
  assert.equal(error.code, 'ADAPTER_NOT_INSTALLED');
  assert.match(error.message, /needs @verdict\/kubernetes, which is not installed: add it next to @verdict\/testing \(npm install --save-dev @verdict\/kubernetes\)/);
  return true;
});
console.log(`core-only: node_modules/@verdict holds ${installed.join(' and ')}; a Kubernetes input asks for @verdict/kubernetes`);
