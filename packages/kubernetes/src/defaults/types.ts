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

/** A type (or a kind): its own defaulter, then the types at its fields (zz_generated.defaults.go's covering defaulters). */
export interface DefaultedType {
  defaulter?: string;
  fields: ReadonlyArray<readonly [Segments, string]>;
}

export interface DefaultingTable {
  /** Defaulter name → its steps. */
  functions: Readonly<Record<string, readonly DefaultStep[]>>;
  /** Type name → what runs on a struct of that type. */
  types: Readonly<Record<string, DefaultedType>>;
  /** `apiVersion kind` → what runs on the object. */
  kinds: Readonly<Record<string, DefaultedType>>;
}
