/**
 * Gatekeeper's `spec.match` (pkg/mutation/match/match.go, pkg/target/matcher.go)
 * as core selectors. All matchers are ANDed in Gatekeeper's order; the block is
 * evaluated against `object` and, failing that, `oldObject`. Kinds, scope and
 * namespaces read the request (the same for both objects); labelSelector,
 * namespaceSelector (for Namespace objects) and name read each object.
 */
import { compileLabelSelector, type CompiledLabelSelector, type DialectContext, type Selector } from '@verdict/core';
import { inputObject, inputString, isNamespaceKind, isObject, kindOf, metadataMap, metadataOf, str, withNameLabel } from './read.js';
import { didYouMean, typeOf } from './suggest.js';
import { generateNameMatcher, wildcardError, wildcardMatcher } from './wildcard.js';

type Block = Readonly<Record<string, unknown>>;
type Target = 'object' | 'oldObject';
/** A matcher that reads one of the two objects; it may throw (a match error). */
type PerTarget = { key: string; text: string; test: (input: unknown, target: Target) => boolean };

/** A list of strings at `path`, or `undefined` after reporting why not. */
export function stringList(value: unknown, path: string, ctx: DialectContext, what: string): string[] | undefined {
  if (!Array.isArray(value)) {
    ctx.problem(path, `${what} must be a list of strings (got ${typeOf(value)})`);
    return undefined;
  }
  let ok = true;
  value.forEach((item, i) => {
    if (typeof item !== 'string') {
      ctx.problem(`${path}/${i}`, `${what} must be strings (got ${typeOf(item)}; quote it in YAML)`);
      ok = false;
    }
  });
  return ok ? (value as string[]) : undefined;
}

/** A label selector: validated by core (with did-you-mean hints), compiled once. */
export function labelSelector(value: unknown, path: string, ctx: DialectContext): CompiledLabelSelector | undefined {
  const checked = ctx.labelSelector(value, path);
  return checked === undefined ? undefined : compileLabelSelector(checked);
}

function objectsPresent(input: unknown): boolean {
  if (!isObject(inputObject(input, 'object')) && !isObject(inputObject(input, 'oldObject'))) {
    throw new Error('neither object nor oldObject is set in the request, so the Gatekeeper match cannot be evaluated');
  }
  return true;
}

function kinds(value: unknown, ctx: DialectContext): Selector | undefined {
  if (!Array.isArray(value)) {
    ctx.problem('/kinds', `kinds must be a list of {apiGroups, kinds} (got ${typeOf(value)})`);
    return undefined;
  }
  if (value.length === 0) return undefined;
  const entries: Array<{ kinds: Set<string> | undefined; groups: Set<string> | undefined; text: string }> = [];
  value.forEach((entry, i) => {
    const at = `/kinds/${i}`;
    if (!isObject(entry)) {
      ctx.problem(at, `a kinds entry must be an object {apiGroups: [...], kinds: [...]} (got ${typeOf(entry)})`);
      return;
    }
    for (const key of Object.keys(entry)) {
      if (key !== 'apiGroups' && key !== 'kinds') ctx.problem(`${at}/${key}`, `unknown field "${key}" in a kinds entry${didYouMean(key, ['apiGroups', 'kinds'])}`);
    }
    const k = entry['kinds'] === undefined || entry['kinds'] === null ? [] : stringList(entry['kinds'], `${at}/kinds`, ctx, 'kinds');
    const g = entry['apiGroups'] === undefined || entry['apiGroups'] === null ? [] : stringList(entry['apiGroups'], `${at}/apiGroups`, ctx, 'apiGroups');
    if (!k || !g) return;
    const kindSet = k.length === 0 || k.includes('*') ? undefined : new Set(k);
    const groupSet = g.length === 0 || g.includes('*') ? undefined : new Set(g);
    entries.push({ kinds: kindSet, groups: groupSet, text: `${kindSet ? k.join('|') : 'any kind'} in ${groupSet ? `apiGroups ${g.map((x) => JSON.stringify(x)).join('|')}` : 'any group'}` });
  });
  const test = (input: unknown): boolean => {
    const { kind, group } = kindOf(input);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if ((!e.kinds || e.kinds.has(kind)) && (!e.groups || e.groups.has(group))) return true;
    }
    return false;
  };
  const selector: Selector = { test, where: '/kinds', describe: `kinds: ${entries.map((e) => e.text).join(' or ')}` };
  if (entries.length > 0 && entries.every((e) => e.kinds)) {
    selector.index = { path: ['kind', 'kind'], values: [...new Set(entries.flatMap((e) => [...e.kinds!]))] };
  }
  return selector;
}

function scope(value: unknown, ctx: DialectContext): Selector | undefined {
  if (value === undefined || value === null || value === '' || value === '*') return undefined;
  if (value !== 'Cluster' && value !== 'Namespaced') {
    const hint = typeof value === 'string' ? didYouMean(value, ['Cluster', 'Namespaced']) : '';
    ctx.problem('/scope', `scope must be "*", "Cluster" or "Namespaced" (got ${typeof value === 'string' ? `"${value}"` : typeOf(value)})${hint}; Gatekeeper would silently match every scope`);
    return undefined;
  }
  const cluster = value === 'Cluster';
  return {
    where: '/scope',
    describe: `scope: ${value}`,
    test: (input) => {
      const isNamespace = isNamespaceKind(input);
      const hasNamespace = !isNamespace && inputString(input, 'namespace') !== '';
      return cluster ? isNamespace || !hasNamespace : !isNamespace && hasNamespace;
    },
  };
}

/** The namespace name Gatekeeper's namespaces/excludedNamespaces look at; `''` for cluster-scoped objects. */
function namespaceName(input: unknown): string {
  return inputString(input, isNamespaceKind(input) ? 'name' : 'namespace');
}

function namespaces(key: 'namespaces' | 'excludedNamespaces', value: unknown, ctx: DialectContext): Selector | undefined {
  if (value === undefined || value === null) return undefined;
  const list = stringList(value, `/${key}`, ctx, key);
  if (!list) return undefined;
  let ok = true;
  list.forEach((p, i) => {
    const error = wildcardError(p);
    if (error) {
      ctx.problem(`/${key}/${i}`, error);
      ok = false;
    }
  });
  if (!ok || list.length === 0) return undefined;
  const matchers = list.map(wildcardMatcher);
  const hit = (name: string) => matchers.some((m) => m(name));
  const excluded = key === 'excludedNamespaces';
  return {
    where: `/${key}`,
    describe: `${excluded ? 'namespace not in' : 'namespace in'} (${list.join(', ')})`,
    test: (input) => {
      const name = namespaceName(input);
      if (name === '') return true; // cluster-scoped and not a Namespace: never disqualified
      return excluded ? !hit(name) : hit(name);
    },
  };
}

function source(value: unknown, ctx: DialectContext): Selector | undefined {
  if (value === undefined || value === null || value === '' || value === 'All' || value === 'Original') return undefined;
  if (value === 'Generated') return { where: '/source', describe: 'source: Generated (admission requests are Original)', test: () => false };
  const hint = typeof value === 'string' ? didYouMean(value, ['All', 'Generated', 'Original']) : '';
  ctx.problem('/source', `source must be "All", "Generated" or "Original" (got ${typeof value === 'string' ? `"${value}"` : typeOf(value)})${hint}`);
  return undefined;
}

function labelsPart(value: unknown, ctx: DialectContext): PerTarget | undefined {
  if (value === undefined || value === null) return undefined;
  const sel = labelSelector(value, '/labelSelector', ctx);
  if (!sel) return undefined;
  const text = `labelSelector: ${sel.text}`;
  return { key: 'labelSelector', text, test: (input, t) => sel.matches(metadataMap(inputObject(input, t), 'labels')) };
}

function namespaceSelectorPart(value: unknown, ctx: DialectContext): PerTarget | undefined {
  if (value === undefined || value === null) return undefined;
  const sel = labelSelector(value, '/namespaceSelector', ctx);
  if (!sel) return undefined;
  const text = `namespaceSelector: ${sel.text}`;
  return {
    key: 'namespaceSelector',
    text,
    test: (input, t) => {
      if (isNamespaceKind(input)) {
        // A Namespace is matched by its own labels (of this object).
        const object = inputObject(input, t);
        return sel.matches(withNameLabel(metadataMap(object, 'labels'), str(metadataOf(object)?.['name']) || inputString(input, 'name')));
      }
      const namespace = inputString(input, 'namespace');
      if (namespace === '') return true; // cluster-scoped: always matches
      const labels = isObject(input) ? input['namespaceLabels'] : undefined;
      if (!isObject(labels)) {
        throw new Error(`namespaceSelector needs the labels of namespace "${namespace}", but the namespace lookup does not know it (give createAdmissionWebhook a namespaceLabels lookup, or feed its NamespaceCache)`);
      }
      return sel.matches(labels);
    },
  };
}

function namePart(value: unknown, ctx: DialectContext): PerTarget | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const error = wildcardError(value);
  if (error) {
    ctx.problem('/name', error);
    return undefined;
  }
  const pattern = value as string;
  const byName = wildcardMatcher(pattern);
  const byGenerateName = generateNameMatcher(pattern);
  const text = `name: ${pattern}`;
  return {
    key: 'name',
    text,
    test: (input, t) => {
      const metadata = metadataOf(inputObject(input, t));
      return byName(str(metadata?.['name'])) || byGenerateName(str(metadata?.['generateName']));
    },
  };
}

type TestSelector = Extract<Selector, { test: unknown }>;

/**
 * What a match block without labelSelector or name reads of a request, as core's selection key: the
 * kind, the namespace, its labels and which objects are present. A Namespace object is matched by its
 * own labels, and labels that are not frozen (a NamespaceCache's are) may change in place: neither has
 * a key. One function for every block, so that core remembers a constraint's matching and
 * parameterSelection per key instead of running them on every review.
 */
function requestKey(input: unknown): readonly unknown[] | undefined {
  if (!isObject(input) || isNamespaceKind(input)) return undefined;
  const labels = input['namespaceLabels'];
  if (labels !== undefined && !(isObject(labels) && Object.isFrozen(labels))) return undefined;
  const { group, kind } = kindOf(input);
  // The labels first: they tell namespaces apart at the first comparison.
  return [labels, inputString(input, 'namespace'), kind, group, isObject(input['object']), isObject(input['oldObject'])];
}

/** Compiles the Gatekeeper keys of one match block. */
export function compileGatekeeperMatch(block: Block, ctx: DialectContext): Selector {
  const parts: TestSelector[] = [];
  const shared = [
    block['kinds'] === undefined || block['kinds'] === null ? undefined : kinds(block['kinds'], ctx),
    scope(block['scope'], ctx),
    namespaces('namespaces', block['namespaces'], ctx),
    namespaces('excludedNamespaces', block['excludedNamespaces'], ctx),
    source(block['source'], ctx),
  ];
  for (const s of shared) if (s) parts.push(s as TestSelector);
  const perTarget = [labelsPart(block['labelSelector'], ctx), namespaceSelectorPart(block['namespaceSelector'], ctx), namePart(block['name'], ctx)]
    .filter((p): p is PerTarget => p !== undefined);
  if (perTarget.length > 0) {
    // Gatekeeper's matchAny: the object, then the oldObject; a missing one is skipped, an error ends the match.
    const onTarget = (input: unknown, t: Target) => {
      if (!isObject(inputObject(input, t))) return false;
      for (let i = 0; i < perTarget.length; i++) if (!perTarget[i]!.test(input, t)) return false;
      return true;
    };
    parts.push({
      where: perTarget.length === 1 ? `/${perTarget[0]!.key}` : '',
      describe: perTarget.map((p) => p.text).join(' and '),
      test: (input) => onTarget(input, 'object') || onTarget(input, 'oldObject'),
    });
  }
  // Gatekeeper checks first that there is an object to match (else a match error): done by the first matcher
  // itself, which saves a selector per block (parameterSelection entries are matched on every review).
  // labelSelector and name read each object: a block with them has no key.
  const key = perTarget.every((p) => p.key === 'namespaceSelector') ? requestKey : undefined;
  const first = parts[0];
  if (!first) return { test: objectsPresent, describe: 'object or oldObject is present', ...(key ? { key } : {}) };
  const test = first.test;
  parts[0] = { ...first, test: (input) => objectsPresent(input) && test(input) };
  if (key) for (let i = 0; i < parts.length; i++) parts[i] = { ...parts[i]!, key };
  return parts.length === 1 ? parts[0] : { all: parts };
}

/** Whether a policy document is a Gatekeeper constraint (`constraints.gatekeeper.sh/<version>`). */
export function isGatekeeperConstraint(doc: object): boolean {
  const apiVersion = (doc as { apiVersion?: unknown }).apiVersion;
  return typeof apiVersion === 'string' && apiVersion.startsWith('constraints.gatekeeper.sh/');
}

/** The view of each DELETE input, made once per input. */
const deleteViews = new WeakMap<object, Record<string, unknown>>();

/**
 * The input a Gatekeeper constraint's rules read: on DELETE, the object being deleted (`oldObject`) is
 * `object`, as Gatekeeper's webhook sets it before any rule runs (pkg/webhook/policy.go:
 * `req.AdmissionRequest.Object = req.AdmissionRequest.OldObject`). Other operations: the input itself.
 */
export function gatekeeperInput(input: Record<string, unknown>): Record<string, unknown> {
  if (input['operation'] !== 'DELETE' || !isObject(input['oldObject'])) return input;
  let view = deleteViews.get(input);
  if (!view) {
    view = { ...input, object: input['oldObject'] };
    deleteViews.set(input, view);
  }
  return view;
}
