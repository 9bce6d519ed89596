import { describe, expect, it } from 'vitest';
import { fiat, policies, run } from '../src/index.js';

describe('spinnaker example', () => {
  it('answers every question as the policies say', () => {
    const outcomes = Object.fromEntries(run().map(({ question, decision }) => [question, decision.allowed]));
    expect(outcomes).toEqual({
      'bob@example.com READ application team-a-web': true,
      'bob@example.com WRITE application team-a-web': false,
      'ann@example.com WRITE application team-a-web': true,
      'bob@example.com WRITE application billing': true,
      'bob@example.com READ application team-a-payments': false,
      'rita@example.com EXECUTE application team-a-web': true,
      'rita@example.com EXECUTE application team-a-sandbox': false,
      'sam@example.com WRITE account prod-k8s': true,
      'ann@example.com WRITE account prod-k8s': false,
      'ann@example.com EXECUTE service_account team-a-deployer@managed-service-accounts': true,
      'root@example.com WRITE application team-a-payments': true,
      'ann@example.com CREATE application team-a-new': false,
      'root@example.com CREATE application team-a-new': true,
    });
  });

  it('gives Fiat\'s reasons', () => {
    const byQuestion = new Map(run().map(({ question, decision }) => [question, decision.reason]));
    expect(byQuestion.get('bob@example.com WRITE application team-a-web')).toBe('Access denied to application team-a-web - required authorization: WRITE');
    expect(byQuestion.get('ann@example.com WRITE application team-a-web')).toBe('application team-a-web grants WRITE to user ann@example.com');
  });

  it('explains a resource\'s permissions by policy and parameterSelection entry', () => {
    const [contribution] = policies.explain({ type: 'application', name: 'team-a-payments' }).contributions;
    expect(contribution?.entries.map((e) => e.name)).toEqual(['team-a-owns-team-a-apps', 'payments-is-private', 'release-managers-deploy-everything']);
  });

  it('serves the UserPermission.View of a user', () => {
    const view = fiat.getUserPermission('ann@example.com');
    // EXECUTE is explicit (release-managers), so Fiat's READ fallback does not apply.
    expect(view.applications.find((a) => a.name === 'team-a-payments')?.authorizations).toEqual(['READ', 'WRITE']);
    expect(view.accounts.map((a) => [a.name, a.authorizations])).toEqual([['prod-k8s', ['READ']], ['staging-k8s', ['READ', 'WRITE', 'EXECUTE', 'CREATE']]]);
  });
});
