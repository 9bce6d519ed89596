/**
 * Kubernetes' CEL environment by version, as k8s.io/apiserver/pkg/cel/environment/base.go builds it: each
 * library and language option with the Kubernetes minor version it arrived in. The API server compiles a
 * policy in the environment of its compatibility version, so a policy using something that version lacks
 * is refused when it is created; verdict refuses it at load when given the version (validate.ts).
 *
 * verdict's own documents compile in its full environment (no version): everything below, plus what
 * Kubernetes never enables (cel.bind, the image library, cel-js's bytes methods), which a version refuses.
 */
import { CelError } from './errors.js';

/** The newest Kubernetes minor version whose CEL environment verdict knows (base.go adds ext.Lists v3 in 1.34). */
export const NEWEST_KUBERNETES_VERSION = '1.34';

/** Where a name comes from: the Kubernetes minor version it arrived in (`Infinity`: never enabled), and what it is. */
export interface Gate {
  readonly since: number;
  /** The library or option, for the message. */
  readonly library: string;
}

const NEVER = Number.POSITIVE_INFINITY;
const g = (since: number, library: string): Gate => ({ since, library });

const QUANTITY = g(28, 'the quantity library (Kubernetes 1.28)');
const OPTIONAL = g(28, 'optional types (Kubernetes 1.28)');
const STRINGS_V1 = g(29, 'ext.Strings version 2 (Kubernetes 1.29; before it, version 0)');
const SETS = g(29, 'ext.Sets (Kubernetes 1.29)');
const IP = g(30, 'the IP library (Kubernetes 1.30)');
const CIDR = g(30, 'the CIDR library (Kubernetes 1.30)');
const FORMAT = g(31, 'the format library (Kubernetes 1.31)');
const TWO_VAR = g(32, 'two-variable comprehensions, ext.TwoVarComprehensions (Kubernetes 1.32)');
const SEMVER = g(33, 'the semver library (Kubernetes 1.33)');
const LISTS_EXT = g(34, 'ext.Lists version 3 (Kubernetes 1.34)');
const IMAGE = g(NEVER, 'the image library: proposed for Kubernetes 1.33 (kubernetes/kubernetes#130834) and not merged; no release\'s base.go enables it');
const BINDINGS = g(NEVER, 'ext.Bindings (cel.bind): Kubernetes does not enable it (use spec.variables)');
const CEL_JS = g(NEVER, 'a cel-js extension that cel-go does not have');
const STRINGS_V3 = g(NEVER, 'ext.Strings version 3: Kubernetes pins version 2');

/** Global functions by name. */
export const GLOBAL_GATES: ReadonlyMap<string, Gate> = new Map([
  ['quantity', QUANTITY], ['isQuantity', QUANTITY],
  ['ip', IP], ['isIP', IP], ['cidr', CIDR], ['isCIDR', CIDR],
  ['semver', SEMVER], ['isSemver', SEMVER],
  ['image', IMAGE], ['isImage', IMAGE],
]);

/** Namespaced functions (`optional.of`) by qualified name; `ns.*` for every function of a namespace. */
export const NAMESPACE_GATES: ReadonlyMap<string, Gate> = new Map([
  ['optional.*', OPTIONAL],
  ['sets.*', SETS],
  ['strings.quote', STRINGS_V1],
  ['format.*', FORMAT],
  ['lists.range', LISTS_EXT],
  ['cel.bind', BINDINGS],
]);

/**
 * Methods by receiver type (the checked type's name) and name. A receiver whose type is only known at run
 * time (`dyn`) is gated by {@link METHOD_GATES_ANY_RECEIVER} when the name belongs to one library.
 */
export const METHOD_GATES: ReadonlyMap<string, ReadonlyMap<string, Gate>> = new Map<string, ReadonlyMap<string, Gate>>([
  ['kubernetes.Quantity', new Map(['add', 'sub', 'mul', 'div', 'divInt', 'compareTo', 'isLessThan', 'isGreaterThan', 'asInteger', 'asApproximateFloat', 'isInteger', 'sign'].map((n) => [n, QUANTITY]))],
  ['net.IP', new Map(['family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast', 'isCanonical'].map((n) => [n, IP]))],
  ['net.CIDR', new Map(['containsIP', 'containsCIDR', 'ip', 'masked', 'prefixLength'].map((n) => [n, CIDR]))],
  ['kubernetes.Semver', new Map(['major', 'minor', 'patch', 'compareTo', 'isLessThan', 'isGreaterThan'].map((n) => [n, SEMVER]))],
  ['kubernetes.NamedFormat', new Map([['validate', FORMAT]])],
  ['kubernetes.Image', new Map(['containsDigest', 'registry', 'repository', 'identifier', 'tag', 'digest'].map((n) => [n, IMAGE]))],
  ['optional', new Map(['hasValue', 'value', 'or', 'orValue', 'optMap', 'optFlatMap'].map((n) => [n, OPTIONAL]))],
  ['string', new Map([['format', STRINGS_V1], ['reverse', STRINGS_V3]])],
  ['list', new Map(['slice', 'flatten', 'sort', 'sortBy', 'reverse', 'distinct'].map((n) => [n, LISTS_EXT]))],
  ['bytes', new Map(['json', 'hex', 'string', 'base64', 'at'].map((n) => [n, CEL_JS]))],
]);

/** Method names that belong to one library whatever the receiver's type (for receivers of type `dyn`). */
export const METHOD_GATES_ANY_RECEIVER: ReadonlyMap<string, Gate> = new Map([
  ...['asInteger', 'asApproximateFloat', 'isInteger', 'sign', 'divInt', 'compareTo', 'isLessThan', 'isGreaterThan'].map((n) => [n, QUANTITY] as const),
  ...['family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast', 'isCanonical'].map((n) => [n, IP] as const),
  ...['containsIP', 'containsCIDR', 'masked', 'prefixLength'].map((n) => [n, CIDR] as const),
  ...['major', 'minor', 'patch'].map((n) => [n, SEMVER] as const),
  ...['hasValue', 'orValue', 'optMap', 'optFlatMap'].map((n) => [n, OPTIONAL] as const),
  ...['containsDigest', 'registry', 'repository', 'identifier', 'digest'].map((n) => [n, IMAGE] as const),
  ...['slice', 'flatten', 'sortBy', 'distinct'].map((n) => [n, LISTS_EXT] as const),
  ['format', STRINGS_V1],
  ['validate', FORMAT],
]);

/** Two-variable comprehension macros (three arguments for all/exists/exists_one, any for existsOne). */
export const TWO_VAR_MACROS: ReadonlyMap<string, number | undefined> = new Map([
  ['all', 3], ['exists', 3], ['exists_one', 3], ['existsOne', undefined], ['transformList', undefined], ['transformMap', undefined], ['transformMapEntry', undefined],
]);
export const TWO_VAR_GATE = TWO_VAR;
/**
 * `existsOne(x, p)`, the camel-case alias of `exists_one`: a standard macro of cel-go from v0.22 (cel-go#1064),
 * the cel-go Kubernetes 1.32 ships (1.31 ships v0.20), the release that also enables two-variable comprehensions.
 */
export const EXISTS_ONE_GATE = g(32, 'cel-go v0.22, the camel-case alias of exists_one (Kubernetes 1.32)');
/** `a.?b`, `a[?0]`, optional entries: optional types. */
export const OPTIONAL_SYNTAX_GATE = OPTIONAL;
/** `1 < 1.5`: comparisons across int, uint and double (cel.CrossTypeNumericComparisons, Kubernetes 1.28). */
export const CROSS_TYPE_GATE = g(28, 'comparisons across int, uint and double, cel.CrossTypeNumericComparisons (Kubernetes 1.28)');
/** The literal validators (duration, timestamp, regex) base.go adds in 1.29. */
export const LITERAL_VALIDATORS_SINCE = 29;

/** The minor version of a Kubernetes version (`1.30`, `v1.30`, `1.30.2`); a load error for anything else. */
export function kubernetesMinor(version: string): number {
  const m = typeof version === 'string' ? /^v?1\.(\d{1,3})(?:\.\d+)?$/.exec(version.trim()) : null;
  const minor = m ? Number(m[1]) : NaN;
  if (!(minor >= 23)) {
    throw new CelError('INVALID_INPUT', `kubernetesVersion must be a Kubernetes version from 1.23 (when CEL arrived) on, such as "${NEWEST_KUBERNETES_VERSION}" (got ${JSON.stringify(version)})`);
  }
  return minor;
}
