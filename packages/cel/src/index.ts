/**
 * @verdict/cel: Kubernetes' CEL for JavaScript. {@link compileCel} checks an expression once in the
 * environment of the Kubernetes API server (its libraries: lists, strings, regex, URLs, quantities, IPs
 * and CIDRs, semver, format) and evaluates it many times, each evaluation bounded by a cost budget.
 * Expressions are compiled to JavaScript by a planner; cel-js parses and checks them. No Node built-ins:
 * runs in Node, browsers, workers and edge runtimes.
 * @packageDocumentation
 */
export { compileCel, type CompiledCel, type CompileCelOptions } from './public.js';
export type { CelConstant, CelFunction, CelOverride, CelType } from './env.js';
export { CelError, RegexError, type CelErrorCode } from './errors.js';
export { compileRegex, type LinearRegex } from './regex.js';
export { NEWEST_KUBERNETES_VERSION } from './versions.js';
export { ContainerImage, parseContainerImage } from './lib/image.js';
export { formatQuantity, parseResourceQuantity, Quantity, scaledValue, type ParsedQuantity, type QuantityFormat } from './lib/quantity.js';
