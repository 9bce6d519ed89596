/**
 * The `spinnaker` match dialect: selects resources by type, name (globs,
 * case-insensitive as Fiat compares names) and attributes (globs over values).
 */
import { anyGlobMatcher, type MatchDialect, type Selector } from '@verdict/core';
import { parseResourceType } from '../model.js';

function strings(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  return undefined;
}

function nameOf(input: unknown): string {
  const resource = (input as { resource?: { name?: unknown } } | null)?.resource;
  return typeof resource?.name === 'string' ? resource.name.toLowerCase() : '';
}

/**
 * Keys (in `spec.match` and `parameterSelection[].match`):
 * - `resourceTypes`: types as Fiat parses them (`application`, `applications`, `build_service`, `my_ext`);
 * - `resourceNames` / `excludedResourceNames`: names or globs (`team-a-*`), case-insensitive;
 * - `attributes`: `{key: value or [values]}`, each value exact or a glob, over `resource.attributes` (dotted keys reach nested fields).
 */
export const spinnakerMatchDialect: MatchDialect = {
  name: 'spinnaker',
  keys: ['resourceTypes', 'resourceNames', 'excludedResourceNames', 'attributes'],
  compile(block, ctx) {
    const parts: Selector[] = [];
    if (block['resourceTypes'] !== undefined) {
      const types = strings(block['resourceTypes']);
      if (!types || types.length === 0) ctx.problem('/resourceTypes', 'resourceTypes takes a resource type or a list of them (e.g. [application, account])');
      else {
        const parsed: string[] = [];
        types.forEach((t, i) => {
          try {
            parsed.push(parseResourceType(t));
          } catch (error) {
            ctx.problem(`/resourceTypes/${i}`, (error as Error).message);
          }
        });
        parts.push({ field: 'resource.type', values: parsed, where: '/resourceTypes', describe: `resource type in (${parsed.join(', ')})` });
      }
    }
    for (const key of ['resourceNames', 'excludedResourceNames'] as const) {
      if (block[key] === undefined) continue;
      const names = strings(block[key]);
      if (!names) {
        ctx.problem(`/${key}`, `${key} takes a name or glob, or a list of them (e.g. ["team-a-*"])`);
        continue;
      }
      const matcher = anyGlobMatcher(names.map((n) => n.toLowerCase()));
      const include = key === 'resourceNames';
      parts.push({
        test: (input) => matcher(nameOf(input)) === include,
        where: `/${key}`,
        describe: `resource name ${include ? 'in' : 'not in'} (${names.join(', ')})`,
      });
    }
    if (block['attributes'] !== undefined) {
      const attributes = block['attributes'];
      if (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes)) ctx.problem('/attributes', 'attributes takes a map of attribute to value(s), e.g. {owner: team-a}');
      else {
        for (const [key, value] of Object.entries(attributes)) {
          const values = Array.isArray(value) ? value : [value];
          parts.push({ field: ['resource', 'attributes', ...key.split('.')], values, where: `/attributes/${key}` });
        }
      }
    }
    return parts.length === 1 ? parts[0]! : { all: parts };
  },
};
