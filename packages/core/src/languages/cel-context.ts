/**
 * Builds a template unit's CEL context: the environment (with an adapter's functions), the refused
 * names, the adapter's profile for this template, and `spec.variables` compiled in order. Also the hook
 * that compiles `{"cel": "..."}` wherever json-logic is accepted.
 */
import { VerdictError } from '../errors.js';
import type { Report } from './report.js';
import { LogicError, type CelHook } from '../logic/compile.js';
import type { JsonObject } from '../util/object.js';
import type { CelConstant, CelFunction, CelOverride, CelType } from '@verdict/cel';
import { CelCompileError, celEnvironment, kubernetesMinor, pointAt, type CompiledExpression } from '@verdict/cel/internal';
import { celFn, compileInContext, type CelContext, type CelProfile } from './cel-rule.js';

/** CEL settings of `compilePolicies` (adapters: names, functions, refused libraries). */
export interface CelOptions {
  /** Functions added to the environment (e.g. Kyverno's `image()`); see `CelFunction` of `@verdict/cel`. */
  readonly functions?: readonly CelFunction[];
  /** Types the added functions use (e.g. Kyverno's `kyverno.Image`); see `CelType` of `@verdict/cel`. */
  readonly types?: readonly CelType[];
  /** Named values (namespaces such as Kyverno's `json` and `yaml`); see `CelConstant` of `@verdict/cel`. */
  readonly constants?: readonly CelConstant[];
  /** Built-in functions replaced at their call sites, by `name/arity` or `.name/arity`; see `CelOverride` of `@verdict/cel`. */
  readonly overrides?: Readonly<Record<string, CelOverride>>;
  /** Names (variables or functions) that are load errors, with the message to show (e.g. Kyverno's `http`). */
  readonly refuse?: Readonly<Record<string, string>>;
  /**
   * The Kubernetes version whose CEL environment expressions must fit (`"1.30"`), as the API server refuses
   * what its version lacks when a policy is created; a profile's `kubernetesVersion` wins. Default: none,
   * verdict's full environment.
   */
  readonly kubernetesVersion?: string;
  /**
   * The names CEL sees in one template's expressions. Called once per PolicyTemplate or Policy with the
   * document as given; `undefined` keeps verdict's names (input keys, `parameters`/`params`, `element`, `variables`).
   */
  readonly profile?: (template: { readonly kind: string; readonly name: string; readonly document: object }) => CelProfile | undefined;
}

const REFUSED: Readonly<Record<string, string>> = {
  authorizer: '"authorizer" is not available: verdict evaluates policies as a library, without the API server\'s authorizer; move the authorization check out of the policy',
};

/** A parameter path a CEL expression reads (for the parametersSchema check), with the pointer of the expression. */
export interface CelParameterRead {
  readonly path: readonly string[];
  readonly at: string;
}

export interface UnitCel {
  readonly context: CelContext;
  readonly hook: CelHook;
  readonly parameterReads: CelParameterRead[];
  /** Compiles an expression found at `where`; reports a load problem and returns undefined on error. */
  compile(expression: unknown, where: string, expect?: 'bool' | 'string'): CompiledExpression | undefined;
}

/** The message of a CEL load problem: the reason, then the expression with a caret. */
export function celProblem(expression: unknown, error: unknown): string {
  if (error instanceof CelCompileError) return `invalid CEL expression: ${error.message}${typeof expression === 'string' ? pointAt(expression, error.offset) : ''}`;
  return (error as Error).message;
}

/** The minor version of `kubernetesVersion`; a malformed one is core's INVALID_INPUT error. */
function minorOf(version: string): number {
  try {
    return kubernetesMinor(version);
  } catch (error) {
    throw VerdictError.invalidInput((error as Error).message);
  }
}

export function unitCel(spec: JsonObject, template: { kind: string; name: string; document: object }, options: CelOptions | undefined, report: Report): UnitCel {
  const profile = options?.profile?.(template);
  const own = profile?.extensions;
  const refuse = new Map(Object.entries({ ...REFUSED, ...(options?.refuse ?? {}), ...(own?.refuse ?? {}) }));
  const environment = celEnvironment(own ? {
    functions: [...(options?.functions ?? []), ...(own.functions ?? [])],
    types: [...(options?.types ?? []), ...(own.types ?? [])],
    constants: [...(options?.constants ?? []), ...(own.constants ?? [])],
    overrides: { ...(options?.overrides ?? {}), ...(own.overrides ?? {}) },
  } : (options ?? {}));
  const versionText = profile?.kubernetesVersion ?? options?.kubernetesVersion;
  const version = versionText === undefined ? undefined : minorOf(versionText);
  const context: CelContext = { environment, profile, refuse, version, variables: new Map(), variableReads: new Map() };
  const parameterReads: CelParameterRead[] = [];
  const compileAt = (expression: unknown, where: string, expect?: 'bool' | 'string'): CompiledExpression => {
    const compiled = compileInContext(context, expression as string, expect);
    for (const path of compiled.parameterReads) parameterReads.push({ path, at: where });
    return compiled;
  };
  const unit: UnitCel = {
    context,
    parameterReads,
    hook: (expression, mode, at) => {
      try {
        return celFn(context, compileAt(expression, at), mode === 'item');
      } catch (error) {
        throw new LogicError(celProblem(expression, error), at);
      }
    },
    compile(expression, where, expect) {
      try {
        return compileAt(expression, where, expect);
      } catch (error) {
        report(where, 'INVALID_RULE', celProblem(expression, error));
        return undefined;
      }
    },
  };
  ((spec['variables'] as JsonObject[] | undefined) ?? []).forEach((variable, i) => {
    const name = variable['name'] as string;
    const where = `/spec/variables/${i}`;
    if (context.variables.has(name)) {
      report(`${where}/name`, 'DUPLICATE', `variable "${name}" is defined twice`);
      return;
    }
    const compiled = unit.compile(variable['expression'], `${where}/expression`);
    if (compiled) context.variables.set(name, compiled);
  });
  return unit;
}

