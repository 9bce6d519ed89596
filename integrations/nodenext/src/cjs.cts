// Every entry point from CommonJS, type-checked against the .d.cts files and run against the .cjs builds.
import assert = require('node:assert/strict');
import cli = require('@verdict/cli');
import ci = require('@verdict/ci');
import core = require('@verdict/core');
import kubernetes = require('@verdict/kubernetes');
import spinnaker = require('@verdict/spinnaker');
import redis = require('@verdict/spinnaker/redis');
import testing = require('@verdict/testing');
import testingCi = require('@verdict/testing/ci');
import internal = require('@verdict/testing/internal');
import testingKubernetes = require('@verdict/testing/kubernetes');
import testingSpinnaker = require('@verdict/testing/spinnaker');

const policies = 'kind: Policy\napiVersion: verdict.dev/v1\nmetadata: {name: x}\nspec: {validate: [{name: r, rule: false, message: no}]}\n';
const decision: core.Decision = core.compilePolicies(core.parsePolicyDocuments(policies)).evaluate({});
assert.equal(decision.allowed, false);
const review: kubernetes.AdmissionReview = testingKubernetes.admissionReviewFor({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
assert.equal(review.request.operation, 'CREATE');
assert.equal(typeof kubernetes.createAdmissionWebhook, 'function');
const job: ci.JobPayload = testingCi.ciJobFor({ A: 1 });
assert.deepEqual(job.tags, []);
assert.equal(testingSpinnaker.fiatQueryFor('a', 'read', 'application', 'x').authorization, 'READ');
assert.equal(typeof spinnaker.createPermissionEvaluator, 'function');
assert.equal(redis.fiatRedisKeys().admin, 'spinnaker:fiat:permissions:admin');
assert.equal(testing.toOutcome(decision).allowed, false);
assert.equal(typeof internal.readPolicyFiles, 'function');
assert.equal(cli.EXIT.FAILED, 1);
console.log('cjs: every entry point loads and answers');
