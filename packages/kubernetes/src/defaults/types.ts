/** The shape of the generated defaulting table (see scripts/kubernetes-defaults). */

/** Path segments from a struct; `*` is every element of a list. */
export type Segments = readonly string[];

/** A condition on the value at `path` (from the defaulted struct, or from the `in` element with `item`). */
export interface DefaultCondition {
  path: Segments;
  item?: true;
  equals?: unknown;
  oneOf?: readonly unknown[];
  absent?: true;
  present?: true;
  notEmpty?: true;
  /** The value is a map with no keys but these. */
  onlyKeys?: readonly string[];
}

/** One assignment of a defaulter (SetDefaults_<Type>), in source order. */
export interface DefaultStep {
  /** Run on every struct at this path (from the defaulted struct). */
  in?: Segments;
  /** The field to set (when unset: absent or null; with `zero` also "", 0, false, [] or {}; always with `force`). */
  set?: Segments;
  remove?: Segments;
  zero?: true;
  force?: true;
  value?: unknown;
  from?: Segments;
  /** Copy the keys of this map that the target lacks. */
  mergeFrom?: Segments;
  /** SetDefaults_Container's pull policy: `latest` for the tag "latest" (or no tag and no digest), else `otherwise`. */
  imagePullPolicyOf?: Segments;
  latest?: string;
  otherwise?: string;
  if?: readonly DefaultCondition[];
}

export interface DefaultingTable {
  /** Defaulter name → its steps. */
  functions: Readonly<Record<string, readonly DefaultStep[]>>;
  /** `apiVersion kind` → the defaulters that run, in order, each at a struct path. */
  kinds: Readonly<Record<string, ReadonlyArray<readonly [Segments, string]>>>;
}
