/**
 * A Spinnaker platform answering Fiat's question in-process: applications and
 * accounts come from Front50/Clouddriver-like definitions, their permissions
 * from verdict policies (policies/permissions.yaml): READ for everyone, WRITE
 * for the owning team, a few overrides. Prints each decision with its reason,
 * and why a resource has the permissions it has.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createPermissionEvaluator, policyPermissionSource, prefixPermissionSource, type FiatDefinitions, type PermissionDecision } from '@verdict/spinnaker';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export const policies = policyPermissionSource(readFileSync(here('../policies/permissions.yaml'), 'utf8'), { source: 'policies/permissions.yaml' });

export const definitions: FiatDefinitions = {
  users: {
    'ann@example.com': [{ name: 'everyone', source: 'EXTERNAL' }, { name: 'team-a', source: 'GITHUB_TEAMS' }],
    'bob@example.com': [{ name: 'everyone', source: 'EXTERNAL' }, { name: 'team-b', source: 'GITHUB_TEAMS' }],
    'rita@example.com': ['release-managers'],
    'sam@example.com': ['everyone', 'sre'],
    'root@example.com': ['spinnaker-admins'],
  },
  accounts: [{ name: 'prod-k8s', cloudProvider: 'kubernetes' }, { name: 'staging-k8s', cloudProvider: 'kubernetes' }],
  applications: [
    { name: 'team-a-web' },
    { name: 'team-a-payments' },
    { name: 'billing', attributes: { owner: 'team-b' } },
    { name: 'team-a-sandbox' },
  ],
  serviceAccounts: [{ name: 'team-a-deployer@managed-service-accounts', memberOf: ['team-a'] }],
};

export const fiat = createPermissionEvaluator({
  definitions,
  fiat: { adminRoles: ['spinnaker-admins'], restrictApplicationCreation: true },
  permissionSources: [
    policies,
    // Only admins may create applications (Fiat's usual `*` prefix for CREATE).
    prefixPermissionSource({ prefixes: [{ prefix: '*', permissions: { CREATE: ['spinnaker-admins'] } }] }),
  ],
});

export const questions: Array<[user: string, name: string, type: string, authorization: string]> = [
  ['bob@example.com', 'team-a-web', 'application', 'READ'],
  ['bob@example.com', 'team-a-web', 'application', 'WRITE'],
  ['ann@example.com', 'team-a-web', 'application', 'WRITE'],
  ['bob@example.com', 'billing', 'application', 'WRITE'],
  ['bob@example.com', 'team-a-payments', 'application', 'READ'],
  ['rita@example.com', 'team-a-web', 'application', 'EXECUTE'],
  ['rita@example.com', 'team-a-sandbox', 'application', 'EXECUTE'],
  ['sam@example.com', 'prod-k8s', 'account', 'WRITE'],
  ['ann@example.com', 'prod-k8s', 'account', 'WRITE'],
  ['ann@example.com', 'team-a-deployer@managed-service-accounts', 'service_account', 'EXECUTE'],
  ['root@example.com', 'team-a-payments', 'application', 'WRITE'],
];

export function run(): Array<{ question: string; decision: PermissionDecision }> {
  return [
    ...questions.map(([user, name, type, authorization]) => ({
      question: `${user} ${authorization} ${type} ${name}`,
      decision: fiat.hasPermission(user, name, type, authorization),
    })),
    { question: 'ann@example.com CREATE application team-a-new', decision: fiat.canCreate('ann@example.com', 'application', { name: 'team-a-new' }) },
    { question: 'root@example.com CREATE application team-a-new', decision: fiat.canCreate('root@example.com', 'application', { name: 'team-a-new' }) },
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { question, decision } of run()) console.log(`${decision.allowed ? 'ALLOW' : 'DENY '}  ${question}\n       ${decision.reason}`);
  console.log('\nWhy team-a-payments has its permissions:');
  for (const c of policies.explain({ type: 'application', name: 'team-a-payments' }).contributions) {
    console.log(`  ${c.kind}/${c.policy} entries [${c.entries.map((e) => e.name ?? e.index).join(', ')}]: ${JSON.stringify(c.permissions)}`);
  }
  console.log(`\nGET /authorize/ann@example.com:\n${JSON.stringify(fiat.getUserPermission('ann@example.com'), null, 2)}`);
}
