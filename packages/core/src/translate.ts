/**
 * Document translators: how an adapter loads document kinds of its own
 * (a Kubernetes ValidatingAdmissionPolicy and its bindings, a Gatekeeper
 * ConstraintTemplate with CEL) as core policies. A translator claims the
 * documents it reads and returns core documents in their place; core compiles
 * those like any other, and reports their problems at the claimed document's
 * index and path, so a user sees the line of the YAML they wrote.
 */
import type { ProblemCode } from './errors.js';
import type { PolicyDocument } from './parse.js';
import type { EnforcementAction } from './types.js';

/** A core document made by a translator, and where its problems belong. */
export interface TranslatedDocument {
  /** A `PolicyTemplate`, `Policy` or constraint document (as a user would write it, with `apiVersion: verdict.dev/v1`). */
  document: PolicyDocument;
  /** Index, in the list given to `compilePolicies`, of the document this one comes from. */
  origin: number;
  /**
   * Maps a JSON pointer inside `document` to one inside the origin document
   * (default: the same pointer), or to another document when a part of the
   * translated one was written elsewhere (e.g. a policy's match, copied into
   * each of its bindings).
   */
  path?: (pointer: string) => string | { document: number; path: string };
  /**
   * A generated variant of another translated document of the same origin (e.g. Kyverno's autogen, with
   * rewritten expressions): a problem at a place already reported is not reported again in other words.
   */
  variant?: boolean;
  /**
   * For a policy: every action its origin document applies, when that is more than the one `enforcementAction`
   * core enforces (a ValidatingAdmissionPolicyBinding's `validationActions: [Deny, Audit]`); explained traces
   * show them (`PolicyTrace.actions`). The adapter answers for the others.
   */
  actions?: readonly EnforcementAction[];
}

/**
 * The logic of one translated document with the policies that use it. With
 * `policies`, the template is private to them: their `kind` may be any name
 * (e.g. `ValidatingAdmissionPolicyBinding`) and other constraints cannot use
 * it. Without, the template defines its `spec.kind` for every constraint of
 * the set, as a `PolicyTemplate` does.
 */
export interface TranslatedUnit {
  template: TranslatedDocument;
  policies?: readonly TranslatedDocument[];
}

/** What a translator may ask of core while it translates. */
export interface TranslationContext {
  /** Every document given to `compilePolicies`, by index. */
  readonly documents: readonly unknown[];
  /** Reports a load problem at a JSON pointer of document `document` (default code `SCHEMA`). */
  problem(document: number, path: string, message: string, code?: ProblemCode): void;
  /** Says that a constraint kind's definition had problems: its constraints are then not reported as of an unknown kind. */
  broken(kind: string): void;
}

/**
 * A document vocabulary registered with `compilePolicies({translators})`.
 * `claim` picks the documents it reads (they are not compiled as core
 * documents, and may be data such as the parameter objects of a policy);
 * `translate` turns them into core documents.
 */
export interface DocumentTranslator {
  readonly name: string;
  claim(documents: readonly unknown[]): readonly number[];
  translate(claimed: readonly number[], ctx: TranslationContext): readonly TranslatedUnit[];
}

interface Generated {
  origin: number;
  path: (pointer: string) => string | { document: number; path: string };
  variant: boolean;
  actions?: readonly EnforcementAction[];
}

const same = (pointer: string) => pointer;

/** The documents a Loader compiles: the given ones not claimed, then the translated ones. */
export class Translation {
  /** Given documents followed by translated ones (indexes past the given list are translated). */
  readonly documents: unknown[];
  readonly claimed = new Set<number>();
  /** Translated templates private to their policies: template index -> policy indexes. */
  readonly bound = new Map<number, number[]>();
  readonly boundPolicies = new Set<number>();
  /** Constraint kinds whose translated definition failed. */
  readonly broken = new Set<string>();
  private readonly generated = new Map<number, Generated>();

  constructor(given: readonly unknown[], translators: readonly DocumentTranslator[], report: (document: number, path: string, code: ProblemCode, message: string) => void) {
    this.documents = [...given];
    const ctx: TranslationContext = {
      documents: given,
      problem: (document, path, message, code) => report(document, path, code ?? 'SCHEMA', message),
      broken: (kind) => this.broken.add(kind),
    };
    for (const translator of translators) {
      const claimed = translator.claim(given).filter((i) => Number.isInteger(i) && i >= 0 && i < given.length && !this.claimed.has(i));
      if (claimed.length === 0) continue;
      for (const i of claimed) this.claimed.add(i);
      for (const unit of translator.translate(claimed, ctx)) {
        const template = this.add(unit.template);
        if (unit.policies) {
          const policies = unit.policies.map((p) => this.add(p));
          this.bound.set(template, policies);
          for (const p of policies) this.boundPolicies.add(p);
        }
      }
    }
  }

  private add(doc: TranslatedDocument): number {
    const index = this.documents.length;
    this.documents.push(doc.document);
    this.generated.set(index, { origin: doc.origin, path: doc.path ?? same, variant: doc.variant === true, ...(doc.actions ? { actions: [...doc.actions] } : {}) });
    return index;
  }

  /** The document a policy is reported against (lint): its own, or the one it was translated from, with the pointer mapping. */
  source(index: number, document: object): { index: number; object: object; path?: (pointer: string) => string } {
    const g = this.generated.get(index);
    if (!g) return { index, object: document };
    const object = this.documents[g.origin];
    return { index: g.origin, object: object !== null && typeof object === 'object' ? object : document, path: (p) => this.locate(index, p).path };
  }

  /** Whether document `index` is a variant (its problems are shown only where nothing was reported yet). */
  isVariant(index: number): boolean {
    return this.generated.get(index)?.variant === true;
  }

  /** The actions translated document `index`'s origin applies, when its translator named them. */
  actionsOf(index: number): readonly EnforcementAction[] | undefined {
    return this.generated.get(index)?.actions;
  }

  /** Whether document `index` was made by a translator. */
  isGenerated(index: number): boolean {
    return this.generated.has(index);
  }

  /** Where a problem at (`document`, `path`) is shown: translated documents map to their origin. */
  locate(document: number, path: string): { document: number; path: string } {
    const g = this.generated.get(document);
    if (!g) return { document, path };
    const mapped = g.path(path);
    return typeof mapped === 'string' ? { document: g.origin, path: mapped } : mapped;
  }
}
