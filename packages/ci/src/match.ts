/**
 * The CI match vocabulary: `projects`, `groups`, `users`, `tags`, `refs`,
 * `sources` and `variables` in any match block (`spec.match` and each
 * `parameterSelection` entry), translated into core selectors over the job
 * input. Core keys (`labels`, `fields`, `when`, `all`, `any`, `not`) still work.
 */
import { anyGlobMatcher, type DialectContext, type MatchDialect, type Selector } from '@verdict/core';

type Translate = (values: string[], where: string) => Exclude<Selector, boolean>;

function read(input: unknown, path: readonly [string, string]): unknown {
  const outer = (input as Record<string, unknown> | null)?.[path[0]];
  return outer !== null && typeof outer === 'object' ? (outer as Record<string, unknown>)[path[1]] : undefined;
}

/**
 * A name glob or an id: a `test` selector rather than `any` of two fields, so
 * the trace shows this key's own description (core drops `describe` on `any`).
 */
function either(name: readonly [string, string], id: readonly [string, string], values: string[]): Exclude<Selector, boolean> {
  const matches = anyGlobMatcher(values);
  return {
    test: (input) => [read(input, name), read(input, id)].some((v) => typeof v === 'string' && matches(v)),
  };
}

const field = (path: string) => (values: string[], where: string): Exclude<Selector, boolean> => ({ field: path, values, where });

/** Each key: what it matches, and how. Strings are globs (`*` stays within one `/` segment, `**` crosses them). */
const KEYS: Readonly<Record<string, { what: string; translate: Translate }>> = {
  /** Project path globs or project ids. */
  projects: {
    what: 'project',
    translate: (values) => either(['project', 'path'], ['project', 'id'], values),
  },
  /** Namespace path globs: a group matches its projects and every subgroup's. */
  groups: { what: 'group', translate: field('project.groups') },
  /** User login globs or user ids. */
  users: {
    what: 'user',
    translate: (values) => either(['user', 'login'], ['user', 'id'], values),
  },
  /** Tag globs: matches when any of the job's tags matches. */
  tags: { what: 'tag', translate: field('tags') },
  /** Branch or tag name globs (`ref`). */
  refs: { what: 'ref', translate: field('ref') },
  /** Pipeline sources (`push`, `web`, `schedule`, `merge_request_event`, …). */
  sources: { what: 'pipeline source', translate: field('pipelineSource') },
};

function list(value: unknown, key: string, ctx: DialectContext): string[] | undefined {
  const items = typeof value === 'string' || typeof value === 'number' ? [value] : value;
  if (!Array.isArray(items) || items.length === 0) {
    ctx.problem(`/${key}`, `"${key}" takes a non-empty list of names, globs or ids (got ${Array.isArray(items) ? 'an empty list' : JSON.stringify(value)})`);
    return undefined;
  }
  const out: string[] = [];
  items.forEach((item: unknown, i) => {
    if (typeof item === 'number' && Number.isFinite(item)) out.push(String(item));
    else if (typeof item === 'string' && item !== '') out.push(item);
    else ctx.problem(`/${key}/${i}`, `"${key}" entries must be non-empty strings or numbers (got ${JSON.stringify(item) ?? String(item)})`);
  });
  return out.length === items.length ? out : undefined;
}

/**
 * The `ci` match dialect, registered by `createJobAdmission` and
 * {@link loadJobPolicies}. Example: `match: {groups: [acme], users: [alice, 98123]}`.
 * `variables` takes a label selector over the job's variables, in the
 * structured or the string form (`"CI_COMMIT_REF_PROTECTED=true"`).
 */
export const ciMatchDialect: MatchDialect = {
  name: 'ci',
  keys: [...Object.keys(KEYS), 'variables'],
  compile(block, ctx) {
    const parts: Selector[] = [];
    for (const [key, value] of Object.entries(block)) {
      if (key === 'variables') {
        const selector = ctx.labelSelector(value, '/variables');
        if (selector !== undefined) parts.push({ labels: selector, path: 'variables', where: '/variables' });
        continue;
      }
      const spec = KEYS[key]!;
      const values = list(value, key, ctx);
      if (!values) continue;
      parts.push({ ...spec.translate(values, `/${key}`), describe: `${spec.what} in (${values.join(', ')})`, where: `/${key}` });
    }
    return parts.length === 1 ? parts[0]! : { all: parts };
  },
};
