/**
 * The kubectl selector string form (`env in (prod,staging),!legacy,x>1`):
 * apimachinery's lexer and parser (`pkg/labels/selector.go`), behaviour for
 * behaviour, errors included.
 */
import { SelectorError } from '../errors.js';
import { labelKeyError, newRequirement, type LabelSelectorOperator, type Requirement } from './requirements.js';

// ---------------------------------------------------------------------------

type Tok = 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '!=' | '=' | '==' | '>' | '<' | 'end' | 'error';
interface Token {
  tok: Tok;
  text: string;
  pos: number;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const SYMBOLS: Record<string, Tok> = { '(': '(', ')': ')', ',': ',', '!': '!', '!=': '!=', '=': '=', '==': '==', '>': '>', '<': '<' };
const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && isSpace(text[i]!)) i++;
    if (i >= text.length) {
      tokens.push({ tok: 'end', text: '', pos: i });
      return tokens;
    }
    const start = i;
    if (SPECIAL.has(text[i]!)) {
      // Longest match among the operator tokens, as the Go lexer scans them.
      let buffer = '';
      let last: Tok | undefined;
      let lastLength = 0;
      while (i < text.length && SPECIAL.has(text[i]!)) {
        buffer += text[i];
        const t = SYMBOLS[buffer];
        if (t) {
          last = t;
          lastLength = buffer.length;
        } else if (last) break;
        i++;
      }
      i = start + lastLength;
      tokens.push({ tok: last!, text: text.slice(start, i), pos: start });
      continue;
    }
    while (i < text.length && !SPECIAL.has(text[i]!) && !isSpace(text[i]!)) i++;
    const word = text.slice(start, i);
    tokens.push({ tok: word === 'in' ? 'in' : word === 'notin' ? 'notin' : 'id', text: word, pos: start });
  }
}

class StringParser {
  private position = 0;
  constructor(private readonly tokens: Token[], private readonly source: string) {}

  /** In "values" context the keywords in/notin are plain identifiers. */
  private peek(values: boolean): Token {
    const t = this.tokens[this.position]!;
    return values && (t.tok === 'in' || t.tok === 'notin') ? { ...t, tok: 'id' } : t;
  }

  private next(values: boolean): Token {
    const t = this.peek(values);
    if (this.position < this.tokens.length - 1) this.position++;
    return t;
  }

  private fail(message: string, at: Token): never {
    throw new SelectorError(`invalid label selector "${this.source}": ${message} at position ${at.pos}`, { position: at.pos });
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const t = this.peek(true);
      if (t.tok === 'end') return requirements;
      if (t.tok !== 'id' && t.tok !== '!') this.fail(`found "${t.text}", expected "!", an identifier or the end`, t);
      requirements.push(this.requirement());
      const sep = this.next(true);
      if (sep.tok === 'end') return requirements;
      if (sep.tok !== ',') this.fail(`found "${sep.text}", expected "," or the end`, sep);
      const after = this.peek(true);
      if (after.tok !== 'id' && after.tok !== '!') this.fail(`found "${after.text || 'the end'}", expected an identifier after ","`, after);
    }
  }

  private requirement(): Requirement {
    let first = this.next(true);
    let negated = false;
    if (first.tok === '!') {
      negated = true;
      first = this.next(true);
    }
    if (first.tok !== 'id') this.fail(`found "${first.text || 'the end'}", expected an identifier`, first);
    const keyError = labelKeyError(first.text);
    if (keyError) this.fail(keyError, first);
    const look = this.peek(true);
    if (negated || look.tok === 'end' || look.tok === ',') return this.build(first, negated ? 'DoesNotExist' : 'Exists', []);
    const opToken = this.next(false);
    switch (opToken.tok) {
      case 'in':
      case 'notin':
        return this.build(first, opToken.tok === 'in' ? 'In' : 'NotIn', this.valueSet());
      case '=':
      case '==':
        return this.build(first, 'In', this.exactValue());
      case '!=':
        return this.build(first, 'NotIn', this.exactValue());
      case '>':
      case '<':
        return this.build(first, opToken.tok === '>' ? 'Gt' : 'Lt', this.exactValue());
      default:
        return this.fail(`found "${opToken.text || 'the end'}", expected one of =, ==, !=, in, notin, >, <`, opToken);
    }
  }

  private build(keyToken: Token, op: LabelSelectorOperator, values: string[]): Requirement {
    const errors: string[] = [];
    const req = newRequirement(keyToken.text, op, values, errors);
    if (!req) this.fail(errors.join('; '), keyToken);
    return req;
  }

  private exactValue(): string[] {
    const look = this.peek(true);
    if (look.tok === 'end' || look.tok === ',') return [''];
    const t = this.next(true);
    if (t.tok !== 'id') this.fail(`found "${t.text}", expected a value`, t);
    return [t.text];
  }

  private valueSet(): string[] {
    const open = this.next(true);
    if (open.tok !== '(') this.fail(`found "${open.text || 'the end'}", expected "("`, open);
    const look = this.peek(true);
    if (look.tok === ')') {
      this.next(true);
      return [''];
    }
    if (look.tok !== 'id' && look.tok !== ',') this.fail(`found "${look.text || 'the end'}", expected ",", ")" or a value`, look);
    const set = new Set<string>();
    for (;;) {
      const t = this.next(true);
      if (t.tok === 'id') {
        set.add(t.text);
        const after = this.peek(true);
        if (after.tok === ',') continue;
        if (after.tok === ')') break;
        this.fail(`found "${after.text || 'the end'}", expected "," or ")"`, after);
      } else if (t.tok === ',') {
        if (set.size === 0) set.add('');
        const after = this.peek(true);
        if (after.tok === ')') {
          set.add('');
          break;
        }
        if (after.tok === ',') {
          this.next(true);
          set.add('');
        }
      } else this.fail(`found "${t.text || 'the end'}", expected "," or a value`, t);
    }
    const close = this.next(true);
    if (close.tok !== ')') this.fail(`found "${close.text || 'the end'}", expected ")"`, close);
    return [...set].sort();
  }
}

/** Parses the string form into requirements sorted by key; throws {@link SelectorError} with the position. */
export function stringRequirements(text: string): Requirement[] {
  const requirements = new StringParser(lex(text), text).parse();
  // apimachinery sorts by key (sort.Sort, not stable); ties keep parse order here.
  return requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
