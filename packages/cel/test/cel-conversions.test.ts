/**
 * Conversions and range errors as cel-go has them (and Kubernetes with it): timestamps and durations to
 * strings and back, int64 overflow, doubles out of the int range, timestamps outside years 1 to 9999,
 * numeric time-zone offsets, nanoseconds. Cases from cel-spec's conversions, integer_math and timestamps conformance
 * files; each also runs through the planner (generated code and closures) and through cel-js.
 */
import { describe, expect, it } from 'vitest';
import { compileCel } from '../src/public.js';
import { buildCel } from '../src/compile.js';
import { celEnvironment } from '../src/env.js';
import { CelBudget } from '../src/meter.js';
import { withMeter } from '../src/runtime.js';
import { toCel } from '../src/values.js';
import { celCases, error } from './cel-helpers.js';

describe('conversions of timestamps and durations', () => {
  celCases([
    ['string(timestamp)', "string(timestamp('2009-02-13T23:31:30Z'))", '2009-02-13T23:31:30Z'],
    ['string(timestamp) with a fraction', "string(timestamp('2009-02-13T23:31:30.120Z'))", '2009-02-13T23:31:30.12Z'],
    ['string(duration)', "string(duration('1000000s')) + ' ' + string(duration('1.5s'))", '1000000s 1.5s'],
    ['int(timestamp): Unix seconds', "int(timestamp('2009-02-13T23:31:30Z'))", 1234567890],
    ['timestamp(timestamp)', 'timestamp(timestamp(1000000000)) == timestamp(1000000000)', true],
    ['duration(duration)', "duration(duration('100s')) == duration('100s')", true],
    ['duration + timestamp', "duration('120s') + timestamp('2009-02-13T23:01:00Z') == timestamp('2009-02-13T23:03:00Z')", true],
    ['string(bytes) of invalid UTF-8', "string(b'\\000\\xff')", error(/invalid UTF-8/)],
    ['int(uint)', 'int(42u) + int(uint(7))', 49],
    ['int(uint) past the int range', 'int(18446744073709551615u)', error(/integer overflow/)],
  ]);
});

describe('range errors', () => {
  celCases([
    ['negating the smallest int', '-(-9223372036854775808)', error(/integer overflow/)],
    ['the smallest int divided by -1', '(-9223372036854775808) / -1', error(/integer overflow/)],
    ['int(1e99)', 'int(1e99)', error(/integer overflow/)],
    ['int of 2^63 as a double', 'int(9223372036854775807.0)', error(/integer overflow/)],
    ['int of -2^63 as a double', 'int(-9223372036854775808.0)', error(/integer overflow/)],
    ['int of a double in range', 'int(-1.5e3)', -1500],
    ['a timestamp past year 9999', "timestamp('9999-12-31T23:59:59Z') + duration('1s')", error(/timestamp out of range/)],
    ['a timestamp before year 1', "timestamp('0001-01-01T00:00:00Z') - duration('1s')", error(/timestamp out of range/)],
    ['a duration past int64 nanoseconds', "duration(string(320000000000) + 's')", error(/duration out of range/)],
    ['the difference of far timestamps', "timestamp('9999-12-31T23:59:59Z') - timestamp('0001-01-01T00:00:00Z')", error(/duration out of range/)],
    ['durations added past the range', "duration('5000000000s') + duration('5000000000s')", error(/duration out of range/)],
  ]);
});

describe('nanoseconds', () => {
  celCases([
    ['a timestamp keeps its nanoseconds', "string(timestamp('9999-12-31T23:59:59.999999999Z'))", '9999-12-31T23:59:59.999999999Z'],
    ['added to a duration', "timestamp('0001-01-01T00:00:01.999999999Z') + duration('999999999ns') == timestamp('0001-01-01T00:00:02.999999998Z')", true],
    ['one nanosecond past year 9999', "timestamp('9999-12-31T23:59:59.999999999Z') + duration('1ns')", error(/timestamp out of range/)],
    ['compared', "timestamp('2009-02-13T23:31:30.000000001Z') > timestamp('2009-02-13T23:31:30Z') && duration('1ns') > duration('0s')", true],
    ['the difference of timestamps', "string(timestamp('2009-02-13T23:31:30.000000001Z') - timestamp('2009-02-13T23:31:30Z'))", '0.000000001s'],
    ['a negative duration prints its sign once', "string(timestamp('2009-02-13T23:31:30Z') - timestamp('2009-02-13T23:31:31.5Z')) + ' ' + string(duration('1s') - duration('1.5s'))", '-1.5s -0.5s'],
    ['before the epoch', "string(timestamp('1969-12-31T23:59:59.999999999Z') - duration('1ns'))", '1969-12-31T23:59:59.999999998Z'],
    ['nine digits and a numeric offset (35 characters, RFC 3339)', "string(timestamp('2011-08-18T19:03:37.010000000+01:00'))", '2011-08-18T18:03:37.01Z'],
  ]);
});

describe('timestamp strings: RFC 3339, as cel-go parses them', () => {
  celCases([
    ['nine digits and an offset, read at run time', 'string(timestamp(nine))', '2011-08-18T18:03:37.123456789Z'],
    ['a space for the T', 'timestamp(space)', error(/ISO 8601/)],
    ['an offset without its colon', 'timestamp(noColon)', error(/ISO 8601/)],
    ['no offset', 'timestamp(noOffset)', error(/ISO 8601/)],
    ['a date alone', 'timestamp(date)', error(/ISO 8601/)],
    ['a month past 12', 'timestamp(month)', error(/ISO 8601/)],
  ], {
    nine: '2011-08-18T19:03:37.123456789+01:00', space: '2011-08-18 19:03:37Z', noColon: '2011-08-18T19:03:37+0100',
    noOffset: '2011-08-18T19:03:37', date: '2011-08-18', month: '2011-13-18T19:03:37Z',
  });
});

describe('numeric time-zone offsets', () => {
  celCases([
    ['hours at +02:00 without a sign', "timestamp('2009-02-13T23:31:30Z').getHours('02:00')", 1],
    ['day of month at -02:30', "timestamp('2009-02-13T02:00:00Z').getDayOfMonth('-02:30')", 11],
    ['day of month at +11:00', "timestamp('2009-02-13T23:31:30Z').getDayOfMonth('+11:00')", 13],
    ['year at -09:30', "timestamp('2009-01-01T05:00:00Z').getFullYear('-09:30')", 2008],
    ['seconds at -00:00', "timestamp('2009-02-13T23:31:30Z').getSeconds('-00:00')", 30],
    ['a named zone still works', "timestamp('2009-02-13T23:31:30Z').getHours('Asia/Tokyo')", 8],
  ]);
});

describe('`in` on a container read unconverted', () => {
  // The container `in` reads is given as JSON, unconverted (no conversion of a whole map for a hash lookup): each
  // answer, value or error, is the one the converted container gives.
  const cases: Array<[string, Record<string, unknown>]> = [
    ['1 in o.l', { o: { l: [1, 2] } }], ['1.0 in o.l', { o: { l: [1, 2] } }], ['3 in o.l', { o: { l: [1, 2] } }], ['1u in o.l', { o: { l: [1, 2] } }],
    ["{'a': 1} in o.l", { o: { l: [{ a: 1 }] } }], ['[1] in o.l', { o: { l: [[1]] } }], ['o.x in o.l', { o: { x: 1, l: [1.0] } }],
    ["'a' in o.m", { o: { m: { a: 1 } } }], ['1 in o.m', { o: { m: { a: 1 } } }], ["'a' in o.n", { o: { n: 1 } }], ["'a' in o.s", { o: { s: 'a' } }],
    ['null in o.l', { o: { l: [null] } }], ['1.5 in o.l', { o: { l: [1.5] } }], ['2 in l', { l: [2.0] }],
    ['o.l.exists(e, 1 in e)', { o: { l: [[1]] } }], ["o.l.all(e, 'k' in e)", { o: { l: [{ k: 1 }] } }], ["'k' in o.missing", { o: {} }],
  ];
  const answer = (expression: string, variables: Record<string, unknown>): unknown => {
    try {
      return compileCel(expression).evaluate(variables);
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  it.each(cases)('%s', (expression, variables) => {
    expect(answer(expression, variables)).toEqual(answer(expression, toCel(variables) as Record<string, unknown>));
  });

  it('costs the same for a map of 10 keys and one of 100,000: nothing converts', () => {
    const budget = new CelBudget(Number.MAX_SAFE_INTEGER);
    const spent = (m: Record<string, unknown>) => {
      const before = budget.cost + budget.worked;
      withMeter(budget, () => buildCel("'team' in o.labels", { environment: celEnvironment(), refuse: new Map() }).run({ o: { labels: m } }, { cache: new Map() }));
      return budget.cost + budget.worked - before;
    };
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`l${i}`, i]));
    expect(spent(wide)).toBe(spent({ team: 1 }));
  });
});
