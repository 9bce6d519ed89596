/**
 * Kubernetes quantities as resource.Quantity parses and writes them: value, format, rounding up to a nano,
 * the canonical text (String, MarshalJSON) and rounding to a scale. Rows ported from apimachinery's
 * quantity_test.go (fixtures/kubernetes-quantity, Apache-2.0, see its NOTICE).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatQuantity, parseResourceQuantity, Quantity, scaledValue, type QuantityFormat } from '../src/index.js';

type Num = number | string;
interface Rows {
  parse: Array<[string, Num, number, QuantityFormat]>;
  invalid: string[];
  string: Array<[Num, number, QuantityFormat, string, string]>;
  stringBelowNano: Array<[Num, number, QuantityFormat, string]>;
  binaryZeroExponent: Array<[Num, number, QuantityFormat, string]>;
  binaryPastEi: Array<[Num, number, QuantityFormat, string]>;
  parseEmit: Array<[string, string]>;
  roundUp: Array<[string, number, Num, number]>;
}

const ROWS = JSON.parse(readFileSync(new URL('./fixtures/kubernetes-quantity/rows.json', import.meta.url), 'utf8')) as Rows;

/** decQuantity(i, exponent): i x 10^exponent. */
const dec = (i: Num, exponent: number): Quantity => (exponent >= 0 ? new Quantity(BigInt(i) * 10n ** BigInt(exponent), 0) : new Quantity(BigInt(i), -exponent));
const same = (a: Quantity, b: Quantity): boolean => a.num * 10n ** BigInt(b.scale) === b.num * 10n ** BigInt(a.scale);

describe('resource.Quantity parsing (TestQuantityParse)', () => {
  it.each(ROWS.parse)('%s', (input, i, exponent, format) => {
    for (const [sign, factor] of [['', 1n], ['+', 1n], ['-', -1n]] as const) {
      const q = parseResourceQuantity(`${sign}${input}`);
      const want = dec(i, exponent);
      expect(same(q.value, new Quantity(want.num * factor, want.scale)), `${sign}${input}`).toBe(true);
      expect(q.format).toBe(format);
    }
  });

  it.each(ROWS.invalid.map((s) => [s]))('refuses %j', (input) => {
    expect(() => parseResourceQuantity(input)).toThrow(/quantities must match|unable to parse/);
  });
});

describe('resource.Quantity canonical text (TestQuantityString)', () => {
  it.each(ROWS.string)('%s x 10^%s %s is %s', (i, exponent, format, text, alternate) => {
    const value = dec(i, exponent);
    expect(formatQuantity(value, format)).toBe(text);
    if (value.num !== 0n) expect(formatQuantity(new Quantity(-value.num, value.scale), format)).toBe(`-${text}`);
    // The canonical text parses back and is kept as written; an alternate spelling is rewritten to it.
    expect(parseResourceQuantity(text).text).toBe(text);
    if (alternate !== '') expect(parseResourceQuantity(alternate).text).toBe(text);
  });

  it.each([...ROWS.stringBelowNano, ...ROWS.binaryZeroExponent, ...ROWS.binaryPastEi])('%s x 10^%s %s is %s', (i, exponent, format, text) => {
    expect(formatQuantity(dec(i, exponent), format)).toBe(text);
  });

  it.each(ROWS.parseEmit)('%s is written %s (TestQuantityParseEmit)', (input, text) => {
    expect(parseResourceQuantity(input).text).toBe(text);
    expect(parseResourceQuantity(`-${input}`).text).toBe(`-${text}`);
  });

  it('keeps a canonical text as written, signs included, as ParseQuantity does', () => {
    expect(parseResourceQuantity('+1').text).toBe('+1');
    expect(parseResourceQuantity('1025Ki').text).toBe('1025Ki');
    expect(parseResourceQuantity('1024Ki').text).toBe('1Mi');
    expect(parseResourceQuantity('0.5').text).toBe('500m');
  });
});

describe('rounding to a scale (TestQuantityRoundUp)', () => {
  it.each(ROWS.roundUp)('%s at 10^%s', (input, scale, i, exponent) => {
    const want = dec(i, exponent);
    // The rounded value in units of 10^scale.
    const units = scale >= 0 ? want.num / 10n ** BigInt(want.scale + scale) : want.num * 10n ** BigInt(-scale - want.scale);
    expect(scaledValue(parseResourceQuantity(input).value, scale)).toBe(units);
  });

  it('gives MilliValue and Value as resource.Quantity does', () => {
    expect(scaledValue(parseResourceQuantity('1500m').value, -3)).toBe(1500n);
    expect(scaledValue(parseResourceQuantity('0.5').value, 0)).toBe(1n);
    expect(scaledValue(parseResourceQuantity('1Gi').value, 0)).toBe(1073741824n);
  });
});
