/**
 * Match keys of verdict's own adapters. Core does not know them (they arrive
 * as dialects), but when a document uses one without its dialect registered,
 * the load problem says which package provides it and how to load with it,
 * instead of only "unknown match field". Each adapter's tests check that its
 * dialect's keys are listed here.
 */
interface AdapterKeys {
  /** The adapter's name, as `verdict --as` and `@verdict/testing` spell it. */
  adapter: 'kubernetes' | 'ci' | 'spinnaker';
  /** What the vocabulary is, in the words of its users. */
  vocabulary: string;
  /** How to load with the dialect. */
  how: string;
  keys: readonly string[];
}

const ADAPTERS: readonly AdapterKeys[] = [
  {
    adapter: 'kubernetes',
    vocabulary: 'Gatekeeper and webhook match vocabulary of @verdict/kubernetes',
    how: 'load them with loadKubernetesPolicies or createAdmissionWebhook, or pass {dialects: [kubernetesDialect]} to compilePolicies',
    keys: [
      'kinds', 'scope', 'namespaces', 'excludedNamespaces', 'name', 'source', 'labelSelector', 'namespaceSelector', 'rules', 'objectSelector', 'namespace',
      'resourceRules', 'excludeResourceRules', 'matchPolicy',
    ],
  },
  {
    adapter: 'ci',
    vocabulary: 'CI job match vocabulary of @verdict/ci',
    how: 'load them with loadJobPolicies or createJobAdmission, or pass {dialects: [ciMatchDialect]} to compilePolicies',
    keys: ['projects', 'groups', 'users', 'tags', 'refs', 'sources', 'variables'],
  },
  {
    adapter: 'spinnaker',
    vocabulary: 'Fiat resource match vocabulary of @verdict/spinnaker',
    how: 'load them with policyPermissionSource, or pass {dialects: [spinnakerMatchDialect]} to compilePolicies',
    keys: ['resourceTypes', 'resourceNames', 'excludedResourceNames', 'attributes'],
  },
];

/** `: it is in the … vocabulary of @verdict/…; load them with …`, or `''` for a key no adapter defines. */
export function adapterHint(key: string): string {
  const adapter = ADAPTERS.find((a) => a.keys.includes(key));
  return adapter ? `: it belongs to the ${adapter.vocabulary}, which is not registered here; ${adapter.how}` : '';
}

/**
 * The verdict adapter whose match vocabulary has `key` (`namespaceSelector` →
 * `kubernetes`, `projects` → `ci`, `resourceNames` → `spinnaker`), or
 * `undefined` for a core key or one no adapter defines. Tools use it to tell
 * which adapter a policy is written for without importing the adapters.
 */
export function adapterOfMatchKey(key: string): 'kubernetes' | 'ci' | 'spinnaker' | undefined {
  return ADAPTERS.find((a) => a.keys.includes(key))?.adapter;
}
