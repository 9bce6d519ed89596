/**
 * Lint of mutation patch paths: a label or annotation key holding "/"
 * (`verdict.dev/checked`) must be escaped as `~1` in a JSON pointer. Written
 * as `/metadata/labels/verdict.dev/checked`, the patch creates a nested
 * object under `labels`, which the Kubernetes API server rejects (label and
 * annotation values are strings).
 */
import type { TemplateUnit } from './template-unit.js';
import { escapePointerSegment, isPlainObject } from './util/object.js';

export interface PatchPathFinding {
  /** JSON pointer of the path in the template's document. */
  path: string;
  message: string;
}

const MAPS = new Set(['labels', 'annotations']);

/** The finding for one patch path (`{{…}}` parts count as one segment each), or `undefined`. */
function nested(pointer: string): string | undefined {
  const segments = pointer.replace(/\{\{.*?\}\}/g, 'x').split('/').slice(1);
  for (let i = 0; i + 3 < segments.length; i++) {
    if (segments[i] !== 'metadata' || !MAPS.has(segments[i + 1]!)) continue;
    const map = segments[i + 1]!;
    const raw = pointer.split('/').slice(1);
    const key = raw.slice(i + 2).join('/');
    const fixed = `/${raw.slice(0, i + 2).join('/')}/${escapePointerSegment(key)}`;
    return `patch path ${pointer} nests below the ${map === 'labels' ? 'label' : 'annotation'} key "${raw[i + 2]}": a key holding "/" is written with "~1" ` +
      `(${fixed}); as written, the patch creates a nested object under ${map}, which the Kubernetes API server rejects`;
  }
  return undefined;
}

/** Findings for every `path` and `from` of the template's mutate patches. */
export function lintPatchPaths(unit: TemplateUnit): PatchPathFinding[] {
  const spec = unit.origin && isPlainObject((unit.origin.object as Record<string, unknown>)['spec']) ? (unit.origin.object as { spec: Record<string, unknown> }).spec : undefined;
  const rules = Array.isArray(spec?.['mutate']) ? spec['mutate'] : [];
  const findings: PatchPathFinding[] = [];
  rules.forEach((rule, r) => {
    const patch = isPlainObject(rule) && Array.isArray(rule['patch']) ? rule['patch'] : [];
    patch.forEach((op, i) => {
      if (!isPlainObject(op)) return;
      for (const field of ['path', 'from'] as const) {
        const value = op[field];
        const message = typeof value === 'string' ? nested(value) : undefined;
        if (message) findings.push({ path: `/spec/mutate/${r}/patch/${i}/${field}`, message });
      }
    });
  });
  return findings;
}
