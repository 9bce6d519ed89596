/**
 * The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library and the cel-go extensions the API server
 * enables in environment/base.go), each in its own file, registered into the base environment.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { formatLibrary } from './format.js';
import { imageLibrary } from './image.js';
import { listsLibrary } from './lists.js';
import { listsExtLibrary } from './lists-ext.js';
import { netLibrary } from './net.js';
import { quantityLibrary } from './quantity.js';
import { regexLibrary } from './regex.js';
import { semverLibrary } from './semver.js';
import { stringsLibrary } from './strings.js';
import { urlLibrary } from './url.js';

/**
 * verdict's implementation of a function cel-js already has (values: `[receiver?, ...args]`). Returns
 * `DECLINE` (from ../ast.ts) when the runtime types are another overload's.
 */
export type Override = (values: unknown[]) => unknown;

export interface CelLibrary {
  readonly name: string;
  register(env: Environment): void;
  /** Global functions it defines: the library is left out of an environment whose adapter defines one of them itself. */
  readonly globals?: readonly string[];
  /** Replacements of cel-js built-ins, by `name/arity` (global) or `.name/arity` (method). */
  readonly overrides?: Readonly<Record<string, Override>>;
}

export const KUBERNETES_LIBRARIES: readonly CelLibrary[] = [
  quantityLibrary, regexLibrary, stringsLibrary, listsLibrary, listsExtLibrary, netLibrary, urlLibrary, formatLibrary, semverLibrary, imageLibrary,
];
