/**
 * Gatekeeper constraints on DELETE: Gatekeeper's webhook copies the object being deleted (the
 * request's oldObject) into `object` before any rule runs (pkg/webhook/policy.go), so a constraint
 * judges the deleted object; other policies keep the API server's `object: null`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { admissionReviewFor, loadKubernetesPolicies, toAdmissionInput } from '@verdict/kubernetes';
import { pod, webhookFor } from './helpers.js';

const repoFile = (path: string) => readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');
const documents = (...paths: string[]) => paths.map(repoFile).join('\n---\n');

const ALLOWED_REPOS = 'examples/gatekeeper-library/allowedrepos';
const REQUIRED_LABELS_CEL = 'test/fixtures/gatekeeper-library-cel/requiredlabels';

/** A Pod from another registry than the constraint allows. */
const foreignPod = () => pod({ name: 'nginx', namespace: 'default', image: 'nginx:1.27' });

describe('Gatekeeper constraints on DELETE', () => {
  it('json-logic template: denies deleting a Pod that violates the constraint, as Gatekeeper does', async () => {
    const { run } = webhookFor({ policies: documents(`${ALLOWED_REPOS}/template.yaml`, `${ALLOWED_REPOS}/samples/repo-must-be-openpolicyagent/constraint.yaml`) });
    const { response } = await run(null, { oldObject: foreignPod(), operation: 'DELETE' });
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toContain('[repo-is-openpolicyagent]');
    expect(response.status?.message).toContain('nginx:1.27');
    // A Pod the constraint accepts is deleted.
    const ok = pod({ name: 'opa', namespace: 'default', image: 'openpolicyagent/opa:0.9.2' });
    expect((await run(null, { oldObject: ok, operation: 'DELETE' })).response.allowed).toBe(true);
  });

  it('CEL template (K8sNativeValidation): `object` and `variables.anyObject` are the deleted object', async () => {
    const template = {
      apiVersion: 'templates.gatekeeper.sh/v1', kind: 'ConstraintTemplate', metadata: { name: 'k8snolatest' },
      spec: {
        crd: { spec: { names: { kind: 'K8sNoLatest' } } },
        targets: [{ target: 'admission.k8s.gatekeeper.sh', code: [{ engine: 'K8sNativeValidation', source: { validations: [
          { expression: 'object.spec.containers.all(c, !c.image.endsWith(":latest"))', message: 'object: an image is :latest' },
          { expression: 'variables.anyObject.spec.containers.all(c, !c.image.endsWith(":latest"))', message: 'anyObject: an image is :latest' },
        ] } }] }],
      },
    };
    const constraint = { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind: 'K8sNoLatest', metadata: { name: 'no-latest' }, spec: { match: { kinds: [{ apiGroups: [''], kinds: ['Pod'] }] } } };
    const set = loadKubernetesPolicies([template, constraint] as never);
    const decision = set.evaluate(toAdmissionInput(admissionReviewFor(null, { oldObject: pod({ name: 'web', image: 'nginx:latest' }), operation: 'DELETE' })));
    expect(decision.allowed).toBe(false);
    expect(decision.errors).toEqual([]);
    expect(decision.violations.map((v) => v.message)).toEqual(['object: an image is :latest', 'anyObject: an image is :latest']);
  });

  it('CEL template of the Gatekeeper library: deleting a Namespace without its required label is denied', async () => {
    const { run } = webhookFor({ policies: documents(`${REQUIRED_LABELS_CEL}/template.yaml`, `${REQUIRED_LABELS_CEL}/samples/all-must-have-owner/constraint.yaml`) });
    const unlabelled = parse(repoFile(`${REQUIRED_LABELS_CEL}/samples/all-must-have-owner/example_disallowed.yaml`));
    const { response } = await run(null, { oldObject: unlabelled, operation: 'DELETE' });
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe('[all-must-have-owner] missing required label, requires all of: owner\n[all-must-have-owner] regex mismatch');
  });

  it('leaves object null on DELETE for policies that are not Gatekeeper constraints (a ValidatingAdmissionPolicy, verdict\'s own)', () => {
    const vap = [
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'null-object.example.com' }, spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] }] },
        validations: [{ expression: 'object == null && oldObject != null', message: 'object is not null' }],
      } },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'null-object' }, spec: { policyName: 'null-object.example.com', validationActions: ['Deny'] } },
    ];
    const own = [
      { apiVersion: 'verdict.dev/v1', kind: 'PolicyTemplate', metadata: { name: 'object-null' }, spec: { kind: 'ObjectNull', validate: [{ name: 'null', rule: { '==': [{ var: 'object' }, null] }, message: 'object is not null' }] } },
      { apiVersion: 'verdict.dev/v1', kind: 'ObjectNull', metadata: { name: 'object-null' }, spec: {} },
    ];
    const set = loadKubernetesPolicies([...vap, ...own] as never);
    const decision = set.evaluate(toAdmissionInput(admissionReviewFor(null, { oldObject: pod({ name: 'web' }), operation: 'DELETE' })));
    expect(decision).toMatchObject({ allowed: true, violations: [], errors: [] });
    expect(decision.trace.map((t) => t.matched)).toEqual([true, true]);
  });
});
