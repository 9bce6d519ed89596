/**
 * JSON text of a value at any depth. `JSON.stringify` recurses on the JavaScript stack and throws a
 * `RangeError` on values nested some thousands deep (how many depends on what V8 has optimised and on
 * the stack already in use), while a patch may carry a value as deep as the API server accepts (10,000
 * levels) or deeper. The usual value goes through `JSON.stringify`; one it cannot write goes through
 * the explicit-stack writer below, which gives the same text for JSON values.
 */

/** The text `JSON.stringify(value)` gives, for plain JSON values nested to any depth. */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return writeJson(value);
  }
}

/** A pending piece of output: text written as is, or a value still to write. */
type Piece = { text: string } | { value: unknown };

const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** `JSON.stringify` with an explicit stack: strings, numbers, booleans, null, arrays, plain objects, `toJSON`. */
export function writeJson(root: unknown): string {
  const out: string[] = [];
  const stack: Piece[] = [{ value: root }];
  while (stack.length > 0) {
    const piece = stack.pop()!;
    if ('text' in piece) {
      out.push(piece.text);
      continue;
    }
    let v = piece.value;
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON: () => unknown }).toJSON();
    if (v === null || typeof v !== 'object') {
      // Scalars as JSON.stringify writes them (non-finite numbers as null; a bigint throws, as it does there).
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    const pending: Piece[] = [];
    if (Array.isArray(v)) {
      pending.push({ text: '[' });
      v.forEach((item: unknown, i) => {
        if (i > 0) pending.push({ text: ',' });
        pending.push(skipped(item) ? { text: 'null' } : { value: item });
      });
      pending.push({ text: ']' });
    } else {
      pending.push({ text: '{' });
      let first = true;
      for (const key of Object.keys(v)) {
        const item = (v as Record<string, unknown>)[key];
        if (skipped(item)) continue;
        pending.push({ text: `${first ? '' : ','}${JSON.stringify(key)}:` }, { value: item });
        first = false;
      }
      pending.push({ text: '}' });
    }
    for (let i = pending.length - 1; i >= 0; i--) stack.push(pending[i]!);
  }
  return out.join('');
}
