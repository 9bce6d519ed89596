/**
 * Reading Kyverno MutatingPolicy and NamespacedMutatingPolicy documents
 * (`policies.kyverno.io`, kyverno/api `MutatingPolicySpec`) with the checks
 * Kyverno makes when they are created (its CRD schema and
 * `pkg/cel/policies/mpol/validate.go`), after its defaulting (failurePolicy
 * `Fail`, reinvocationPolicy `Never`, admission enabled, mutateExisting
 * disabled). What needs a cluster is refused: `mutateExisting` and the target
 * selection that serves it.
 */
import { controllers, enabled, evaluation, readKyvernoHead } from '../kyverno/read.js';
import { readMutations } from '../map/read.js';
import { counting, FieldReader, type Report } from '../vap/fields.js';
import { readNamedExpressions } from '../vap/read.js';
import type { KyvernoMutatingKind, KyvernoMutatingPolicy } from './types.js';

/** Versions Kyverno serves, per kind (its CRDs). */
export const MUTATING_VERSIONS: Readonly<Record<KyvernoMutatingKind, readonly string[]>> = {
  MutatingPolicy: ['v1', 'v1beta1', 'v1alpha1'],
  NamespacedMutatingPolicy: ['v1', 'v1beta1'],
};

const SPEC = ['matchConstraints', 'matchConditions', 'variables', 'mutations', 'auditAnnotations', 'failurePolicy', 'reinvocationPolicy', 'evaluation', 'autogen', 'webhookConfiguration', 'targetMatchConstraints', 'targetMatchConditions'];
const EVALUATION = ['mutateExisting', 'skipBackgroundRequests', 'useServerSideApply'];
const NO_CLUSTER = 'verdict evaluates admission requests without access to a cluster, so a policy that needs it cannot be loaded (docs/kyverno.md#what-is-refused)';

type Doc = Readonly<Record<string, unknown>>;

const present = (v: unknown) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0) && !(typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

/** `evaluation.mutateExisting` and the target selection: refused when they ask for a cluster. */
function existing(spec: Doc, report: Report): boolean {
  const block = new FieldReader(spec, '/spec', report).object('evaluation');
  const mutateExisting = enabled(block, 'mutateExisting', report, false);
  if (mutateExisting) report('/spec/evaluation/mutateExisting/enabled', `mutateExisting mutates objects already in the cluster (through background update requests): ${NO_CLUSTER}`);
  for (const key of ['targetMatchConstraints', 'targetMatchConditions']) {
    if (present(spec[key])) report(`/spec/${key}`, `${key} selects the existing objects mutateExisting mutates: ${NO_CLUSTER}`);
  }
  const ssa = block?.['useServerSideApply'];
  if (ssa !== undefined && ssa !== null && typeof ssa !== 'boolean') report('/spec/evaluation/useServerSideApply', 'useServerSideApply must be true or false');
  return mutateExisting;
}

/** Reads a MutatingPolicy or NamespacedMutatingPolicy; `undefined` when it has problems (all reported). */
export function readKyvernoMutatingPolicy(doc: Doc, kind: KyvernoMutatingKind, document: number, report: Report): KyvernoMutatingPolicy | undefined {
  const count = counting(report);
  const head = readKyvernoHead(doc, { name: kind, namespaced: kind === 'NamespacedMutatingPolicy', spec: SPEC }, count);
  if (!head) return undefined;
  const { spec, fields: f } = head;
  // auditAnnotations of a MutatingPolicy only reach Kyverno's reports: read for their shape, no effect.
  f.list('auditAnnotations');
  const { admission, background } = evaluation(spec, count, EVALUATION);
  const mutateExisting = existing(spec, count);
  if (!admission && !mutateExisting) count('/spec/evaluation', 'disabling both admission and mutateExisting evaluation modes is not allowed');
  const policy: KyvernoMutatingPolicy = {
    kind, name: head.name, document, spec,
    failurePolicy: f.oneOf('failurePolicy', ['Fail', 'Ignore'] as const) ?? 'Fail',
    reinvocationPolicy: f.oneOf('reinvocationPolicy', ['Never', 'IfNeeded'] as const) ?? 'Never',
    matchConstraints: head.matchConstraints,
    matchConditions: readNamedExpressions(spec, 'matchConditions', count, false),
    variables: readNamedExpressions(spec, 'variables', count),
    mutations: readMutations(spec, count, Infinity),
    serverSideApply: (spec['evaluation'] as Doc | undefined)?.['useServerSideApply'] === true,
    admission, background,
  };
  if (head.namespace !== undefined) policy.namespace = head.namespace;
  const list = controllers(spec, count, 'mutatingAdmissionPolicy');
  if (list) policy.controllers = list;
  return count.count() === 0 ? policy : undefined;
}
