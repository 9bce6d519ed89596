/**
 * `@verdict/cel/internal`: what `@verdict/core` uses to embed CEL in policies (compile with an environment
 * and a set of allowed names, read which roots and constant paths an expression reads so only those are
 * converted, build activations from JSON, evaluate against the engine's own meter). Not part of the public
 * API: it may change in any release; programs use `compileCel` from `@verdict/cel`.
 * @internal
 * @packageDocumentation
 */
export {
  buildCel, CelCompileError, mergeTries, pointAt,
  type CelCompileOptions, type CompiledCel as CompiledExpression, type PathNode, type PathTrie,
} from './compile.js';
export { celEnvironment, type CelEnvironment, type CelExtensions } from './env.js';
export { kubernetesMinor } from './versions.js';
export { withMeter, CelRuntimeError } from './runtime.js';
export { celTypeName, fromCel, type CelCache } from './values.js';
export { Activation, given, view } from './view.js';
export { compileRegex, type LinearRegex } from './regex.js';
export { CelError, RegexError } from './errors.js';
export { UNMETERED, type CelMeter } from './meter.js';
export { API_SERVER_UNITS, type UnitModel } from './units.js';
export { closest, didYouMean } from './suggest.js';
export { FORBIDDEN_KEYS, isForbiddenKey } from './keys.js';
export type { CelConstant, CelFunction, CelOverride, CelType } from './env.js';
export type { CelErrorCode } from './errors.js';
export type { Backend } from './plan/plan.js';
export type { Override as LibraryOverride } from './lib/index.js';
