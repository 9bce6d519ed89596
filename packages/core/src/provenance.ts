/**
 * The user's words in traces of translated policies: with `explain: true`, a
 * trace of a policy a translator made says which of the user's documents it
 * stands for, and its selector and rule places are pointers into those
 * documents (a binding's `/spec/matchResources/namespaceSelector`, a
 * policy's `/spec/validations/0/expression`), not into the generated document
 * (`/spec/match/all/1/namespaceSelector`). Built once per set on the first
 * explained evaluation; places are remembered, so each costs one lookup.
 */
import type { CompiledPolicy } from './compile-options.js';
import { sourceLocation } from './parse.js';
import type { Translation } from './translate.js';
import type { PolicyTrace, RuleTrace, SelectorMismatch, TraceSource } from './types.js';
import { isPlainObject } from './util/object.js';

export class Provenance {
  private readonly places = new Map<string, TraceSource>();
  /** Per template document: rule name -> its pointer in that document (`/spec/validate/0`). */
  private readonly rules = new Map<number, Map<string, string>>();

  constructor(private readonly translation: Translation) {}

  /** Adds the user's documents and places to a trace of `policy` (in place; nothing for core's own documents). */
  annotate(trace: PolicyTrace, policy: CompiledPolicy): void {
    const own = this.translation.isGenerated(policy.index);
    const template = policy.template.origin?.index;
    const ownTemplate = template !== undefined && this.translation.isGenerated(template);
    if (!own && !ownTemplate) return;
    if (own) {
      trace.source = this.place(policy.index, '');
      const actions = this.translation.actionsOf(policy.index);
      if (actions) trace.actions = [...actions];
    }
    // matchConditions belong to the template; every other selector part to the policy.
    const relocate = <T extends SelectorMismatch>(m: T): T => {
      const conditions = m.at.startsWith('/spec/matchConditions');
      const at = conditions ? (ownTemplate ? template : undefined) : own ? policy.index : undefined;
      if (at === undefined) return m;
      const source = this.place(at, m.at);
      return { ...m, at: source.path, source };
    };
    if (trace.mismatch) trace.mismatch = relocate(trace.mismatch);
    if (trace.selection?.mismatches) trace.selection = { ...trace.selection, mismatches: trace.selection.mismatches.map(relocate) };
    if (ownTemplate && trace.rules.length > 0) trace.rules = trace.rules.map((rule) => this.rule(rule, policy, template));
  }

  private rule(rule: RuleTrace, policy: CompiledPolicy, template: number): RuleTrace {
    let names = this.rules.get(template);
    if (!names) {
      names = new Map();
      // The first rule of a name wins, as in the template (names are unique within a template's validate and mutate lists).
      const add = (type: string, name: string, at: string) => names!.has(`${type}\u0000${name}`) || names!.set(`${type}\u0000${name}`, at);
      policy.template.mutate.forEach((r, i) => add('mutate', r.name, `/spec/mutate/${i}`));
      // A CEL validation's place is its expression (what held or failed).
      policy.template.validate.forEach((r, i) => add('validate', r.name, `/spec/validate/${i}${r.expression === undefined ? '' : '/expression'}`));
      this.rules.set(template, names);
    }
    const found = names.get(`${rule.type}\u0000${rule.rule}`);
    if (found === undefined) return rule;
    // The part that failed when it is not the test (a messageExpression): that field of the rule.
    const at = rule.at === undefined ? found : `${found.replace(/\/expression$/, '')}${rule.at}`;
    return { ...rule, source: this.place(template, at) };
  }

  /** The user's place of a pointer of document `index` (remembered). */
  private place(index: number, pointer: string): TraceSource {
    const key = `${index}\u0000${pointer}`;
    let place = this.places.get(key);
    if (place) return place;
    const { document, path } = this.translation.locate(index, pointer);
    place = { document, path };
    const doc = this.translation.documents[document];
    if (isPlainObject(doc)) {
      if (typeof doc['kind'] === 'string') place.kind = doc['kind'];
      const metadata = doc['metadata'];
      if (isPlainObject(metadata) && typeof metadata['name'] === 'string') {
        place.name = typeof metadata['namespace'] === 'string' ? `${metadata['namespace']}/${metadata['name']}` : metadata['name'];
      }
      const loc = sourceLocation(doc, path);
      if (loc) {
        if (loc.source !== undefined) place.file = loc.source;
        place.line = loc.line;
        place.column = loc.column;
      }
    }
    Object.freeze(place);
    this.places.set(key, place);
    return place;
  }
}
