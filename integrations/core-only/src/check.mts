// Installed: @verdict/core (with its CEL, @verdict/cel) and @verdict/testing only. No adapter comes with
// them, testing's main entry types and runs without one, and an input that needs an adapter says which to
// install. @verdict/cel also works on its own, as any JavaScript tool evaluating Kubernetes CEL uses it.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { CelError, compileCel } from '@verdict/cel';
import { evaluateInput, SuiteError } from '@verdict/testing';

const installed = readdirSync('node_modules/@verdict').sort();
assert.deepEqual(installed, ['cel', 'core', 'testing'], `expected only cel, core and testing under node_modules/@verdict, found ${installed.join(', ')}`);
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
const rule = compileCel("object.spec.replicas <= 5 && object.metadata.name.matches('^web-')", { budget: 1000 });
assert.equal(rule.type, 'bool');
assert.equal(rule.evaluate({ object: { metadata: { name: 'web-1' }, spec: { replicas: 3 } } }), true);
assert.throws(() => compileCel('object.spec.replicas <='), (error: unknown) => error instanceof CelError && error.code === 'INVALID_INPUT');
assert.throws(() => compileCel('10 / x').evaluate({ x: 0 }), (error: unknown) => error instanceof CelError && error.code === 'EVALUATION');

console.log(`core-only: node_modules/@verdict holds ${installed.join(', ')}; a Kubernetes input asks for @verdict/kubernetes`);
