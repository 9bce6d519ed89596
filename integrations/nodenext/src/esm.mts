// Every entry point from an ES module, type-checked against the .d.ts files and run against the .js builds.
import assert from 'node:assert/strict';
import { CelError, compileCel } from '@verdict/cel';
import { buildCel } from '@verdict/cel/internal';
import { main as cli } from '@verdict/cli';
import { createJobAdmission } from '@verdict/ci';
import { compilePolicies, parsePolicyDocuments, PolicyLoadError, type Decision } from '@verdict/core';
import { createAdmissionWebhook, type AdmissionReview } from '@verdict/kubernetes';
import { createPermissionEvaluator, SpinnakerError, spinnakerMatchDialect } from '@verdict/spinnaker';
import { resourceInput } from '@verdict/spinnaker/internal';
import { createRedisPermissionSource, fiatRedisKeys, type RedisPermissionSource } from '@verdict/spinnaker/redis';
import { evaluateInput, runSuites, SuiteError, type Outcome } from '@verdict/testing';
import { ciJobFor } from '@verdict/testing/ci';
import { readPolicyFiles } from '@verdict/testing/internal';
import { admissionReviewFor } from '@verdict/testing/kubernetes';
import { fiatQueryFor } from '@verdict/testing/spinnaker';
import { LIMIT, POD, SUITE } from './policies.mjs';

const decision: Decision = compilePolicies(parsePolicyDocuments(LIMIT)).evaluate({ object: { memory: '2Gi' } });
assert.equal(decision.allowed, false);
assert.throws(() => compilePolicies([{ kind: 'Nope' }]), PolicyLoadError);
assert.equal(compileCel("'web-1'.matches('^web-')").evaluate(), true);
assert.throws(() => compileCel('1 +'), CelError);
assert.equal(typeof buildCel, 'function');

const webhook = createAdmissionWebhook({ policies: LIMIT.replace('object.memory', 'object.metadata.annotations.memory') });
const review: AdmissionReview = admissionReviewFor({ ...POD, metadata: { ...POD.metadata, annotations: { memory: '2Gi' } } });
assert.equal((await webhook.review(review)).response.allowed, false);

const { admit } = createJobAdmission({ chain: [{ level: 'instance', policies: LIMIT.replace('object.memory', 'variables.MEMORY') }] });
assert.equal(admit(ciJobFor({ MEMORY: '2Gi' })).admission, 'rejected');

const fiat = createPermissionEvaluator({ definitions: { users: { ann: ['dev'] }, applications: [{ name: 'shop', permissions: { READ: ['dev'] } }] } });
assert.equal(fiat.check(fiatQueryFor('ann', 'read', 'applications', 'shop')).allowed, true);

const source: RedisPermissionSource = createRedisPermissionSource({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 50 });
await source.close();
assert.equal(fiatRedisKeys().users, 'spinnaker:fiat:users');
// The entries of a package share one copy of its classes: the Redis entry throws the main entry's SpinnakerError.
assert.throws(() => createRedisPermissionSource({}), SpinnakerError);
assert.equal(spinnakerMatchDialect.name, 'spinnaker');
assert.equal(typeof resourceInput, 'function');

const outcome: Outcome = await evaluateInput(LIMIT, { object: { memory: '2Gi' } });
assert.deepEqual(outcome.denials, ['[limit] too big']);
assert.ok(new SuiteError('SUITE_INVALID', 'x') instanceof Error);
assert.equal(typeof runSuites, 'function');
assert.equal(typeof readPolicyFiles, 'function');
assert.equal(SUITE.includes('kind: Suite'), true);
assert.equal(typeof cli, 'function');
console.log('esm: every entry point loads and answers');
