/**
 * A policy's validationActions in traces: every action of the list, as the
 * API server applies each (Deny rejects, Warn warns, Audit writes the audit
 * annotation), in the text trace (`formatTrace`) and the JSON one
 * (`traceInWords`, `verdict explain -o json`).
 */
import { describe, expect, it } from 'vitest';
import type { PolicyTrace } from '@verdict/core';
import { evaluateInput, formatTrace } from '@verdict/testing';
import { traceInWords } from '@verdict/testing/internal';

const vap = (actions: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-latest.example.com}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
  - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
    message: images tagged latest are not allowed
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-latest}
spec:
  policyName: no-latest.example.com
  validationActions: ${actions}
`;

const kyverno = (actions: string) => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: no-latest}
spec:
  validationActions: ${actions}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
  - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
    message: images tagged latest are not allowed
`;

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'app', image: 'nginx:latest' }] } };

async function setup(policies: string) {
  const outcome = await evaluateInput(policies, pod);
  const trace = outcome.decision!.trace.filter((t) => t.source !== undefined);
  return { outcome, text: formatTrace(trace), json: trace.map((t) => traceInWords(t) as Record<string, unknown>), trace };
}

describe("a binding's validationActions in traces", () => {
  it('names Deny and Audit both, and the answer applies both', async () => {
    const { outcome, text, json, trace } = await setup(vap('[Deny, Audit]'));
    expect(text).toContain('ValidatingAdmissionPolicyBinding/no-latest [validationActions: Deny, Audit]');
    expect(json[0]).toMatchObject({ validationActions: ['Deny', 'Audit'] });
    expect(json[0]).not.toHaveProperty('actions');
    expect(json[0]).not.toHaveProperty('enforcementAction');
    // Core enforces the strongest; the trace keeps the list in the binding's order.
    expect(trace[0]).toMatchObject({ enforcementAction: 'deny', actions: ['deny', 'audit'] });
    expect(outcome.allowed).toBe(false);
    const response = (outcome.answer as { response: { auditAnnotations?: Record<string, string> } }).response;
    // The API server's validation_failure annotation (a webhook's keys are prefixed by the API server).
    expect(Object.keys(response.auditAnnotations ?? {})).toContain('validation_failure');
  });

  it('names Warn and Audit both, in the order the binding lists them', async () => {
    const { outcome, text, json } = await setup(vap('[Audit, Warn]'));
    expect(text).toContain('[validationActions: Audit, Warn]');
    expect(json[0]).toMatchObject({ validationActions: ['Audit', 'Warn'] });
    expect(outcome.allowed).toBe(true);
    expect(outcome.warnings.join('\n')).toContain('images tagged latest are not allowed');
  });

  it("names a binding's single action alone", async () => {
    const { text, json } = await setup(vap('[Warn]'));
    expect(text).toContain('[validationActions: Warn]');
    expect(json[0]).toMatchObject({ validationActions: ['Warn'] });
  });

  it("names a Kyverno ValidatingPolicy's own validationActions the same way", async () => {
    const { text, json } = await setup(kyverno('[Warn, Audit]'));
    expect(text).toContain('ValidatingPolicy/no-latest [validationActions: Warn, Audit]');
    expect(json[0]).toMatchObject({ validationActions: ['Warn', 'Audit'] });
  });

  it('points a failed validation at its expression', async () => {
    const { trace } = await setup(vap('[Deny]'));
    const rule = trace[0]!.rules[0]!;
    expect(rule).toMatchObject({ result: 'fail', source: { kind: 'ValidatingAdmissionPolicy', path: '/spec/validations/0/expression' } });
    expect(rule).not.toHaveProperty('at');
  });

  it("points a Kyverno validation at its messageExpression when that failed, the message in Kyverno's words", async () => {
    const policy = kyverno('[Deny]').replace('    message: images tagged latest are not allowed', '    messageExpression: "object.missing.name"');
    const { outcome, json } = await setup(policy);
    const rule = (json[0]!['rules'] as Array<Record<string, unknown>>)[0];
    expect(rule).toMatchObject({ result: 'fail', at: '/messageExpression', source: { kind: 'ValidatingPolicy', path: '/spec/validations/0/messageExpression' } });
    expect(rule!['message']).toMatch(/^messageExpression failed: /);
    expect(outcome.denials.join('\n')).toContain('failed to evaluate message expression');
  });

  it("keeps a core trace without actions as core's words", () => {
    const trace: PolicyTrace = { policy: 'p', kind: 'Policy', enforcementAction: 'warn', matched: true, rules: [] };
    expect(formatTrace([trace])).toContain('Policy/p [warn]');
    expect(traceInWords(trace)).toBe(trace);
  });
});
