/**
 * kinitiras' policy kinds (`policy.kcloudlabs.io/v1alpha1`, k-cloud-labs/pkg
 * apis/policy/v1alpha1), as read from documents: only the fields the engine
 * reads, with their JSON names.
 */

/** The API group and version of kinitiras' policies. */
export const KINITIRAS_API_VERSION = 'policy.kcloudlabs.io/v1alpha1';

/** `OverridePolicy` (namespaced), `ClusterOverridePolicy`, `ClusterValidatePolicy`. */
export type KinitirasKind = 'OverridePolicy' | 'ClusterOverridePolicy' | 'ClusterValidatePolicy';

type Json = Record<string, unknown>;

/** A field selector requirement: `field` (a dot path), `operator` and `value`. */
export interface FieldRequirement {
  field: string;
  operator: string;
  value: readonly string[];
}

/** `ResourceSelector` (selector_types.go / overridepolicy_types.go). */
export interface ResourceSelector {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  labelSelector?: Json;
  fieldSelector?: { matchFields: Readonly<Record<string, string>>; matchExpressions: readonly FieldRequirement[] };
}

/** A plaintext overrider: one JSON Patch operation (`value` null when absent, as kinitiras marshals it). */
export interface PlaintextOverrider {
  path: string;
  op: 'add' | 'remove' | 'replace';
  value: unknown;
}

/** An origin overrider (`OverrideRuleOrigin`), kept as written: its fields are read per type. */
export interface OriginOverrider {
  type: string;
  operation: 'add' | 'remove' | 'replace';
  replace: boolean;
  containerCount: number;
  raw: Json;
}

/** `ResourceRefer`: where a template's value or data comes from. */
export interface ResourceRefer {
  from: 'current' | 'old' | 'k8s' | 'owner';
  path: string;
  k8s?: ResourceSelector;
}

/** The overriders of one rule (`Overriders`). */
export interface Overriders {
  plaintext: PlaintextOverrider[];
  cue: string;
  template?: Json;
  renderedCue: string;
  origin?: OriginOverrider[];
}

export interface OverrideRule {
  operations: readonly string[];
  overriders: Overriders;
}

export interface ValidateRule {
  operations: readonly string[];
  cue: string;
  template?: Json;
  renderedCue: string;
}

/** One policy document of the three kinds. */
export interface KinitirasPolicy {
  kind: KinitirasKind;
  name: string;
  /** `""` for the cluster kinds. */
  namespace: string;
  document: number;
  selectors: ResourceSelector[];
  overrideRules: OverrideRule[];
  validateRules: ValidateRule[];
}
