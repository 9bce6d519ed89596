/**
 * Every matcher the docs list, on every adapter's answer (docs/testing.md,
 * "Which matcher for which answer"): each cell either asserts what the answer
 * carries, both ways (`expect(x).toM()` and `expect(y).not.toM()`), or is a
 * documented "not carried" that fails with a message saying so.
 */
import '@verdict/testing/vitest';
import { describe, expect, it } from 'vitest';
import { loadPolicySet } from '@verdict/core';
import { createJobAdmission } from '@verdict/ci';
import { admissionReviewFor, createAdmissionWebhook } from '@verdict/kubernetes';
import { createPermissionEvaluator } from '@verdict/spinnaker';
import { evaluateInput, type Outcome } from '@verdict/testing';
import { ciJobFor } from '@verdict/testing/ci';
import { fiatQueryFor } from '@verdict/testing/spinnaker';
import { failure, PROTECTED_DEPLOYS as PROTECTED } from './helpers.js';

/** A warn-enforced label check and a default annotation; `target` is where the object is (`/object` in core's input, `` for admission). */
const labelAndDefaults = (target: string) => `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: team-label}
spec:
  enforcementAction: warn
  validate: [{name: team, rule: {exists: object.metadata.labels.team}, message: "add a team label"}]
---
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: defaults}
spec:
  parameters: {tier: standard}
  mutate: [{name: tier, patch: [{op: add, path: ${target}/metadata/annotations, value: {tier: "{{parameters.tier}}"}}]}]
`;
const CORE = labelAndDefaults('/object');
const KUBERNETES = labelAndDefaults('');

/** A project level that tags PCI jobs, and a dry-run group level that would reject unprotected deploys. */
const PCI = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: pci}
spec:
  match: {variables: "DATA_CLASS=pci"}
  mutate: [{name: tag, patch: [{op: add, path: /tags/-, value: pci}, {op: add, path: /untag/-, value: shared}]}]
`;
const FIAT = `
apiVersion: verdict.dev/v1
kind: SpinnakerPermissions
metadata: {name: apps}
spec:
  match: {resourceTypes: [application]}
  parameters: {permissions: {READ: [everyone]}}
`;

const pod = (labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop', labels }, spec: { containers: [] } });
const pciJob = ciJobFor({ DATA_CLASS: 'pci', CI_ENVIRONMENT_NAME: 'production', CI_COMMIT_REF_PROTECTED: 'false' }, ['shared', 'docker'], { id: 1 });
const plainJob = ciJobFor({ CI_ENVIRONMENT_NAME: 'staging' }, ['docker'], { id: 2 });

function setup() {
  const core = loadPolicySet(CORE);
  const webhook = createAdmissionWebhook({ policies: KUBERNETES, mutating: true });
  const admission = createJobAdmission({ chain: [{ level: 'project', policies: PCI }, { level: 'group', name: 'acme', dryRun: true, policies: PROTECTED }] });
  const fiat = createPermissionEvaluator({ definitions: { users: { alice: ['everyone'] }, applications: [{ name: 'web', permissions: { READ: ['everyone'] } }] } });
  return {
    core: { unlabelled: core.evaluate({ object: pod({}) }), labelled: core.evaluate({ object: pod({ team: 'web' }) }) },
    kubernetes: { unlabelled: webhook.review(admissionReviewFor(pod({}))), labelled: webhook.review(admissionReviewFor(pod({ team: 'web' }))) },
    ci: { admit: admission.admit.bind(admission), explain: admission.explain.bind(admission) },
    fiat,
  };
}

describe('toBeAllowed and toBeDenied on every answer', () => {
  it('read a decision, an AdmissionReview, a CI job response (and its explanation) and a permission answer', () => {
    const { core, kubernetes, ci, fiat } = setup();
    expect(core.unlabelled).toBeAllowed(); // a warning does not deny
    expect(kubernetes.unlabelled).toBeAllowed();
    expect(ci.admit(pciJob)).toBeAllowed(); // the dry-run level does not reject
    expect(ci.explain(pciJob)).toBeAllowed();
    expect(ci.admit(ciJobFor({ DATA_CLASS: 'pci' }, ['pci'], { id: 3 }))).toBeAllowed();
    expect(fiat.hasPermission('alice', 'web', 'application', 'READ')).toBeAllowed();
    expect(fiat.hasPermission('alice', 'web', 'application', 'WRITE')).toBeDenied('required authorization: WRITE');
    expect(fiat.hasPermission('alice', 'web', 'application', 'READ')).not.toBeDenied();
    const rejecting = createJobAdmission({ chain: [{ level: 'instance', policies: PROTECTED }] });
    expect(rejecting.admit(pciJob)).toBeDenied('deploys must run on a protected ref');
    expect(rejecting.admit(plainJob)).not.toBeDenied();
  });
});

describe('toWarn on every answer', () => {
  it('sees warn-enforced messages of a decision and of an AdmissionReview', () => {
    const { core, kubernetes } = setup();
    expect(core.unlabelled).toWarn('add a team label');
    expect(core.labelled).not.toWarn();
    expect(kubernetes.unlabelled).toWarn('[team-label] add a team label');
    expect(kubernetes.labelled).not.toWarn();
  });

  it("sees a dry-run level's would reject in a CI job response, its explanation and evaluateInput's outcome", async () => {
    const { ci } = setup();
    expect(ci.admit(pciJob)).toWarn('dry run (acme): would reject: deploys must run on a protected ref');
    expect(ci.admit(pciJob)).toWarn(/^dry run \(acme\): would reject/);
    expect(ci.explain(pciJob)).toWarn('dry run (acme): would reject: deploys must run on a protected ref');
    expect(ci.admit(plainJob)).not.toWarn();
    expect(ci.explain(plainJob)).not.toWarn();
  });

  it('finds no warning in a permission answer, and says so', () => {
    const { fiat } = setup();
    expect(fiat.hasPermission('alice', 'web', 'application', 'READ')).not.toWarn();
    expect(failure(() => expect(fiat.hasPermission('alice', 'web', 'application', 'READ')).toWarn())).toContain('expected at least one warning, but there were none');
  });
});

describe('toPatch on every answer', () => {
  it('reads the patch of a decision (from the input root) and of a mutating AdmissionReview (from the object)', () => {
    const { core, kubernetes } = setup();
    expect(core.unlabelled).toPatch('/object/metadata/annotations', { tier: 'standard' });
    expect(core.unlabelled).not.toPatch('/object/metadata/labels');
    expect(kubernetes.unlabelled).toPatch('/metadata/annotations', { tier: 'standard' });
    expect(kubernetes.unlabelled).toPatch('/metadata/annotations/tier', 'standard');
  });

  it("reads a CI job's retag as the operations a policy writes: add /tags/- and add /untag/-", () => {
    const { ci } = setup();
    expect(ci.admit(pciJob)).toPatch('/tags/-', 'pci');
    expect(ci.admit(pciJob)).toPatch('/untag/-', 'shared');
    expect(ci.explain(pciJob)).toPatch('/tags/-', 'pci');
    expect(ci.admit(pciJob)).not.toPatch('/tags/-', 'docker');
    expect(ci.admit(plainJob)).not.toPatch('/tags/-');
    // A rejected job keeps its tags: no change.
    const rejecting = createJobAdmission({ chain: [{ level: 'project', policies: PCI }, { level: 'instance', policies: PROTECTED }] });
    expect(rejecting.admit(pciJob)).not.toPatch('/tags/-');
  });

  it('finds no patch in a permission answer, and says so', () => {
    const { fiat } = setup();
    expect(fiat.hasPermission('alice', 'web', 'application', 'READ')).not.toPatch('/anything');
    expect(failure(() => expect(fiat.hasPermission('alice', 'web', 'application', 'READ')).toPatch('/x'))).toContain('a permission answer carries no patch');
  });
});

describe('toPatchResource on the answers that patch an object', () => {
  it('checks the object a decision or an AdmissionReview patched', () => {
    const { core, kubernetes } = setup();
    const object = pod({});
    const patched = { ...object, metadata: { ...object.metadata, annotations: { tier: 'standard' } } };
    expect(core.unlabelled).toPatchResource({ object: patched });
    expect(kubernetes.unlabelled).toPatchResource(patched, object);
    expect(kubernetes.unlabelled).not.toPatchResource(object, object);
  });
});

describe('toSelectParameters on every adapter, through evaluateInput', () => {
  it('reads the decision an outcome keeps, and says what a bare answer lacks', async () => {
    const { kubernetes, ci } = setup();
    const k8s: Outcome = await evaluateInput(KUBERNETES, pod({}), { kubernetes: { mutating: true } });
    expect(k8s).toSelectParameters('defaults', { tier: 'standard' });
    const job: Outcome = await evaluateInput(PCI, pciJob);
    expect(job).toSelectParameters('pci', {});
    expect(job).toPatch('/tags/-', 'pci');
    const permission: Outcome = await evaluateInput(FIAT, fiatQueryFor('alice', 'READ', 'application', 'web'), { spinnaker: { definitions: { users: { alice: ['everyone'] }, applications: [{ name: 'web' }] } } });
    expect(permission).toBeAllowed();
    expect(permission).toSelectParameters('apps', { permissions: { READ: ['everyone'] } });
    expect(failure(() => expect(kubernetes.unlabelled).toSelectParameters('defaults', { tier: 'standard' }))).toContain('carries no trace');
    expect(failure(() => expect(ci.admit(pciJob)).toSelectParameters('pci', {}))).toContain('carries no trace');
  });
});
