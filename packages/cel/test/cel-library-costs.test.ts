/**
 * The Kubernetes library functions spend the API server's units (cel-go's runtime cost with Kubernetes'
 * library/cost.go `CallCost`, cel-go's overload trackers and default switch), one call at a time: each handler is
 * called under a meter and its `spend` units (CelBudget.cost) are compared with the upstream formula, written
 * here again from the Go source (code points, UTF-8 bytes, ceil or floor as upstream). Functions the API server
 * charges its default one unit spend nothing themselves (the static pass charges that unit) and charge what they
 * do with `work()`. Every name in COSTED_FUNCTIONS is a function the environment defines.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';
import { buildCel } from '../src/compile.js';
import { celEnvironment } from '../src/env.js';
import { CelBudget } from '../src/meter.js';
import { withMeter } from '../src/runtime.js';
import { COSTED_FUNCTIONS } from '../src/lib/costed.js';
import { KUBERNETES_LIBRARIES, type CelLibrary } from '../src/lib/index.js';
import { listsLibrary } from '../src/lib/lists.js';
import { listsExtLibrary } from '../src/lib/lists-ext.js';
import { netLibrary, parseCIDR, parseIP, type CIDR, type IP } from '../src/lib/net.js';
import { formatLibrary, type Format } from '../src/lib/format.js';
import { quantityLibrary } from '../src/lib/quantity.js';
import { regexLibrary } from '../src/lib/regex.js';
import { semverLibrary } from '../src/lib/semver.js';
import { stringsLibrary } from '../src/lib/strings.js';
import { urlLibrary, parseURL, type URL } from '../src/lib/url.js';
import { imageLibrary } from '../src/lib/image.js';

type Handler = (...args: never[]) => unknown;

/** A library's handlers by signature (functions and operators), registered into a recorder instead of cel-js. */
function handlers(lib: CelLibrary): Map<string, Handler> {
  const out = new Map<string, Handler>();
  const recorder = {
    registerFunction: (signature: string, f: Handler) => out.set(signature, f),
    registerOperator: (signature: string, f: Handler) => out.set(signature, f),
    registerType() {},
    registerConstant() {},
    evaluate() {
      return undefined;
    },
  };
  lib.register(recorder as unknown as Environment);
  return out;
}

function handler(lib: CelLibrary, signature: string): (...args: unknown[]) => unknown {
  const f = handlers(lib).get(signature);
  if (!f) throw new Error(`${lib.name} does not register ${signature}`);
  return f as (...args: unknown[]) => unknown;
}

function override(lib: CelLibrary, key: string): (values: unknown[]) => unknown {
  const f = lib.overrides?.[key];
  if (!f) throw new Error(`${lib.name} does not override ${key}`);
  return f;
}

/** The API server's units (`spend`) and verdict's own (`work`) that one run of `f` charges. */
function charged(f: () => unknown): { cost: number; work: number } {
  const meter = new CelBudget(Number.MAX_SAFE_INTEGER);
  withMeter(meter, f);
  return { cost: meter.cost, work: meter.worked };
}

const units = (f: () => unknown) => charged(f).cost;

// The formulas, again from the Go source (not from the implementation's helpers).
/** cel-go's `types.String.Size()`: code points. */
const size = (s: string) => [...s].length;
/** Go's `len(string)`: UTF-8 bytes. */
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
/** `math.Ceil(float64(n) * common.StringTraversalCostFactor)`. */
const scan = (n: number) => Math.ceil(n * 0.1);
/** `math.Ceil(float64(n) * 2 * common.StringTraversalCostFactor)`. */
const scan2 = (n: number) => Math.ceil(n * 2 * 0.1);
/** `strCost * regexCost` of matches, find, findAll and validate. */
const regex = (n: number, pattern: number) => Math.ceil((1 + n) * 0.1) * Math.ceil(pattern * 0.25);

const STRINGS = ['', 'a', 'x'.repeat(9), 'x'.repeat(10), 'x'.repeat(11), 'ABCDEFGHIJ abcdefghij', 'é'.repeat(15), '😀'.repeat(15), `${'x'.repeat(999)}😀`, 'ab '.repeat(40_000)];

describe('strings extension: the API server units of each call', () => {
  const call = (key: string, ...values: unknown[]) => units(() => override(stringsLibrary, key)(values));

  it('charges lowerAscii, upperAscii, substring, trim and format one unit per ten code points, rounded up', () => {
    for (const s of STRINGS) {
      expect(call('.lowerAscii/0', s), s.slice(0, 20)).toBe(scan(size(s)));
      expect(call('.upperAscii/0', s)).toBe(scan(size(s)));
      expect(call('.substring/1', s, 0n)).toBe(scan(size(s)));
      expect(call('.substring/2', s, 0n, 0n)).toBe(scan(size(s)));
      expect(call('.trim/0', s)).toBe(scan(size(s)));
      expect(call('.format/1', s.replaceAll('%', ''), [])).toBe(scan(size(s.replaceAll('%', ''))));
      expect(units(() => handler(stringsLibrary, 'StringsNamespace.quote(string): string')(undefined, s))).toBe(scan(size(s)));
    }
    // 15 astral code points are 30 UTF-16 units: the code points count.
    expect(call('.lowerAscii/0', '😀'.repeat(15))).toBe(2);
  });

  it('charges replace and split the receiver scanned twice, whatever the result', () => {
    for (const s of STRINGS) {
      expect(call('.replace/2', s, 'a', 'bbbb')).toBe(scan2(size(s)));
      expect(call('.replace/3', s, 'x', '', 1n)).toBe(scan2(size(s)));
      expect(call('.split/1', s, ' ')).toBe(scan2(size(s)));
      expect(call('.split/2', s, '', 2n)).toBe(scan2(size(s)));
    }
    expect(call('.replace/2', 'abc 123 def 123', '123', '456')).toBe(3);
  });

  it('charges indexOf and lastIndexOf one unit per ten UTF-8 bytes of the receiver, rounded down', () => {
    for (const s of STRINGS) {
      const expected = Math.floor(bytes(s) * 0.1);
      expect(call('.indexOf/1', s, 'zz')).toBe(expected);
      expect(call('.indexOf/2', s, 'x', 0n)).toBe(expected);
      expect(call('.lastIndexOf/1', s, 'zz')).toBe(expected);
      expect(call('.lastIndexOf/2', s, 'x', 0n)).toBe(expected);
    }
    // 15 'é' are 15 code points but 30 bytes.
    expect(call('.indexOf/1', 'é'.repeat(15), 'é')).toBe(3);
  });

  it('charges join the result scanned twice, and walking the list as work', () => {
    const join = (list: string[], sep?: string) => charged(() => override(stringsLibrary, sep === undefined ? '.join/0' : '.join/1')(sep === undefined ? [list] : [list, sep]));
    expect(join(['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'], ' ').cost).toBe(5);
    expect(join(['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j']).cost).toBe(3);
    expect(join(['é😀', '😀'], '—').cost).toBe(scan2(5));
    const empties = join(Array.from({ length: 100_000 }, () => ''));
    expect(empties.cost).toBe(0);
    expect(empties.work).toBeGreaterThanOrEqual(10_000);
  });

  it('charges charAt nothing of the API server (its default unit is the static pass\'s) and its scan as work', () => {
    const long = charged(() => override(stringsLibrary, '.charAt/1')(['x'.repeat(100_000), 99_999n]));
    expect(long.cost).toBe(0);
    expect(long.work).toBe(10_000);
  });

  it('prints a list nested 100,000 deep for %s with its own stack, charging the template only and the printing as work', () => {
    let nested: unknown = 1n;
    for (let i = 0; i < 100_000; i++) nested = [nested];
    let out: unknown;
    const spent = charged(() => {
      out = override(stringsLibrary, '.format/1')(['%s', [nested]]);
    });
    expect((out as string).length).toBe(200_001);
    expect(spent.cost).toBe(1);
    expect(spent.work).toBeGreaterThanOrEqual(100_000);
    expect(override(stringsLibrary, '.format/1')(['%s', [{ b: [1n, 'x'], a: new Map([[true, null]]) }]])).toBe('{a: {true: null}, b: [1, x]}');
  });

  it('trims a long run of spaces in one pass', () => {
    expect(override(stringsLibrary, '.trim/0')([`${' '.repeat(1_000_000)}x${' \u3000'.repeat(100_000)}`])).toBe('x');
  });
});

describe('regular expressions', () => {
  it('charges matches, find and findAll the string scanned plus one times the pattern over four, without a unit of their own', () => {
    const find = handler(regexLibrary, 'string.find(string): string');
    const findAll = handler(regexLibrary, 'string.findAll(string): list<string>');
    const findN = handler(regexLibrary, 'string.findAll(string, int): list<string>');
    const matches = override(regexLibrary, '.matches/1');
    for (const s of STRINGS) {
      for (const p of ['', 'a', '[a-z]+', 'é😀x', '(a|b|c|d|e|f|g|h)+$']) {
        const expected = regex(size(s), size(p));
        expect(units(() => matches([s, p]))).toBe(expected);
        expect(units(() => find(s, p))).toBe(expected);
        expect(units(() => findAll(s, p))).toBe(expected);
        expect(units(() => findN(s, p, 1n))).toBe(expected);
      }
    }
    expect(units(() => find('abc 123 def 123', '123'))).toBe(2);
  });

  it('charges the global matches(value, pattern) one unit (its overload is not in cel-go\'s cost switch) and the match as work', () => {
    const global = handler(regexLibrary, 'matches(string, string): bool');
    for (const s of STRINGS) {
      const spent = charged(() => global(s, '[a-z]+'));
      expect(spent.cost).toBe(1);
      expect(spent.work).toBe(regex(size(s), 6));
    }
  });

  it('charges the matches of an empty pattern, free upstream, as work', () => {
    const all = charged(() => handler(regexLibrary, 'string.findAll(string): list<string>')('x'.repeat(10_000), ''));
    expect(all.cost).toBe(0);
    expect(all.work).toBeGreaterThanOrEqual(1_000);
  });
});

describe('Kubernetes lists library and cel-go sets', () => {
  const fn = (signature: string) => handler(listsLibrary, signature);
  /** library/cost.go traversalCost, written out on the cases below. */
  const cases: [unknown[], number][] = [
    [[], 0],
    [[1n, 2n, 3n, 4n, 5n], 5],
    [['012345678901', '012345678901', '012345678901'], 3],
    [['', 'a', 'x'.repeat(19), 'é'.repeat(5)], 0 + 0 + 1 + 1],
    [[new Uint8Array(25), new Uint8Array(9)], 2],
    [[[1n, 2n], [3n, ['abcdefghijkl']]], 1 + 1 + 1 + 1],
    [[{ key: 'value-value', k: 1n }, new Map<unknown, unknown>([['x'.repeat(30), null]])], 0 + 1 + 0 + 1 + 3 + 1],
    [Array.from({ length: 10_000 }, (_, i) => BigInt(i)), 10_000],
  ];

  it('charges isSorted, sum, min, max, indexOf and lastIndexOf the list\'s traversal cost', () => {
    for (const [list, expected] of cases) {
      const isSorted = () => {
        try {
          fn('list<dyn>.isSorted(): bool')(list);
        } catch {
          // Lists and maps do not compare: the traversal is charged all the same, as upstream charges a call that failed.
        }
      };
      expect(units(isSorted), JSON.stringify(list.slice(0, 3), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).toBe(expected);
      expect(units(() => fn('list<dyn>.indexOf(dyn): int')(list, 'zzz'))).toBe(expected);
      expect(units(() => fn('list<dyn>.lastIndexOf(dyn): int')(list, 'zzz'))).toBe(expected);
    }
    const ints = [3n, 1n, 2n];
    expect(units(() => fn('list<dyn>.sum(): dyn')(ints))).toBe(3);
    expect(units(() => fn('list<dyn>.min(): dyn')(ints))).toBe(3);
    expect(units(() => fn('list<dyn>.max(): dyn')(ints))).toBe(3);
  });

  it('charges walking a list whose traversal costs nothing as work', () => {
    const walked = charged(() => fn('list<dyn>.indexOf(dyn): int')(Array.from({ length: 10_000 }, () => ''), 'x'));
    expect(walked.cost).toBe(0);
    expect(walked.work).toBeGreaterThanOrEqual(1_000);
  });

  it('charges the sets functions one unit plus the product of the sizes (equivalent: twice the product)', () => {
    const sets = (name: string, a: unknown[], b: unknown[]) => units(() => fn(`SetsNamespace.${name}(list<dyn>, list<dyn>): bool`)(undefined, a, b));
    const lists: unknown[][] = [[], [1n], [1n, 2n, 3n, 4n], [[1n], [2n, 3n]], Array.from({ length: 300 }, (_, i) => BigInt(i))];
    for (const a of lists) {
      for (const b of lists) {
        expect(sets('contains', a, b)).toBe(1 + a.length * b.length);
        expect(sets('intersects', a, b)).toBe(1 + a.length * b.length);
        expect(sets('equivalent', a, b)).toBe(1 + 2 * a.length * b.length);
      }
    }
  });
});

describe('cel-go lists extension (version 3 trackers)', () => {
  const fn = (signature: string) => handler(listsExtLibrary, signature);
  const list = (n: number) => Array.from({ length: n }, (_, i) => BigInt(i));

  it('charges slice, reverse and lists.range the result\'s size plus the call and a new list', () => {
    for (const n of [0, 1, 7, 1000]) {
      expect(units(() => fn('list<dyn>.reverse(): list<dyn>')(list(n)))).toBe(n + 11);
      expect(units(() => fn('ListsNamespace.range(int): list<int>')(undefined, BigInt(n)))).toBe(n + 11);
      expect(units(() => fn('list<dyn>.slice(int, int): list<dyn>')(list(n + 5), 2n, BigInt(n + 2)))).toBe(n + 11);
    }
  });

  it('charges flatten the list\'s size times the depth, and the nested lists walked as work', () => {
    expect(units(() => fn('list<dyn>.flatten(): list<dyn>')([1n, [2n, 3n], [[4n]]]))).toBe(3 + 11);
    expect(units(() => fn('list<dyn>.flatten(int): list<dyn>')([1n, [2n, 3n], [[4n]]], 3n))).toBe(9 + 11);
    const wide = charged(() => fn('list<dyn>.flatten(): list<dyn>')([list(100_000)]));
    expect(wide.cost).toBe(1 + 11);
    expect(wide.work).toBeGreaterThanOrEqual(10_000);
  });

  it('charges sort and distinct the size squared, twice (and a tenth more for strings)', () => {
    for (const n of [0, 1, 2, 10, 33]) {
      expect(units(() => fn('list<dyn>.sort(): list<dyn>')(list(n).reverse()))).toBe(2 * n * n + 11);
      expect(units(() => fn('list<dyn>.distinct(): list<dyn>')(list(n)))).toBe(2 * n * n + 11);
      const strings = Array.from({ length: n }, (_, i) => `s${i}`);
      expect(units(() => fn('list<dyn>.sort(): list<dyn>')(strings))).toBe(Math.floor(n * n * (2 + 0.1)) + 11);
      expect(units(() => fn('list<dyn>.distinct(): list<dyn>')(strings))).toBe(Math.floor(n * n * (2 + 0.1)) + 11);
    }
    // Comparing two long strings is verdict's work, beyond the 19 units upstream charges.
    const long = charged(() => fn('list<dyn>.sort(): list<dyn>')(['b'.repeat(100_000), 'a'.repeat(100_000)]));
    expect(long.cost).toBe(Math.floor(4 * 2.1) + 11);
    expect(long.work).toBeGreaterThanOrEqual(20_000);
  });
});

describe('IP and CIDR', () => {
  const fn = (signature: string) => handler(netLibrary, signature);
  const ip = (s: string) => parseIP(s) as IP;
  const cidr = (s: string) => parseCIDR(s) as CIDR;
  const ADDRESSES = ['192.168.0.1', '2001:db8:3333:4444:5555:6666:7777:8888', '::1', '10.0.0.0/8', '2001:db8::/32', 'not an address at all, and long'];

  it('charges parsing a string one unit per ten code points, rounded up, and ip.isCanonical twice that', () => {
    for (const s of ADDRESSES) {
      const run = (signature: string, ...args: unknown[]) => units(() => {
        try {
          fn(signature)(...args);
        } catch {
          // A string that is no address: the parse is charged all the same.
        }
      });
      if (!s.includes('/')) expect(run('ip(string): net.IP', s)).toBe(scan(size(s)));
      if (s.includes('/')) expect(run('cidr(string): net.CIDR', s)).toBe(scan(size(s)));
      expect(run('isIP(string): bool', s)).toBe(scan(size(s)));
      expect(run('isCIDR(string): bool', s)).toBe(scan(size(s)));
      expect(run('IPNamespace.isCanonical(string): bool', undefined, s)).toBe(scan2(size(s)));
    }
    expect(units(() => fn('IPNamespace.isCanonical(string): bool')(undefined, '2001:db8:3333:4444:5555:6666:7777:8888'))).toBe(8);
  });

  it('charges containsIP and containsCIDR from the CIDR\'s size in bytes, and the string overloads the string\'s parse', () => {
    for (const [c, bytesOf] of [['0.0.0.0/0', 0], ['192.168.0.0/16', 2], ['10.0.0.0/9', 2], ['2001:db8::/32', 4], ['2001:db8::/128', 16]] as const) {
      const compare = Math.ceil((bytesOf + bytesOf) * 0.1);
      expect(units(() => fn('net.CIDR.containsIP(net.IP): bool')(cidr(c), ip('192.0.0.1')))).toBe(compare);
      expect(units(() => fn('net.CIDR.containsIP(string): bool')(cidr(c), '192.169.0.1'))).toBe(compare + scan(11));
      const mask = compare + Math.ceil(bytesOf * 0.1) + 1;
      expect(units(() => fn('net.CIDR.containsCIDR(net.CIDR): bool')(cidr(c), cidr('192.0.0.0/30')))).toBe(mask);
      expect(units(() => fn('net.CIDR.containsCIDR(string): bool')(cidr(c), '192.0.0.0/30'))).toBe(mask + scan(12));
    }
  });

  it('charges a CIDR\'s ip() its nominal unit (ip is charged by name) and the accessors and == nothing', () => {
    expect(units(() => fn('net.CIDR.ip(): net.IP')(cidr('10.0.0.0/8')))).toBe(1);
    for (const s of ['net.CIDR.masked(): net.CIDR', 'net.CIDR.prefixLength(): int', 'string(net.CIDR): string']) expect(units(() => fn(s)(cidr('10.0.0.0/8')))).toBe(0);
    for (const s of ['net.IP.family(): int', 'net.IP.isUnspecified(): bool', 'net.IP.isLoopback(): bool', 'net.IP.isLinkLocalMulticast(): bool', 'net.IP.isLinkLocalUnicast(): bool', 'net.IP.isGlobalUnicast(): bool', 'string(net.IP): string']) {
      expect(units(() => fn(s)(ip('::1')))).toBe(0);
    }
    expect(units(() => fn('net.IP == net.IP')(ip('::1'), ip('::1')))).toBe(0);
    expect(units(() => fn('net.CIDR == net.CIDR')(cidr('::1/128'), cidr('::1/128')))).toBe(0);
  });
});

describe('URL, quantity, semver, format and image', () => {
  it('charges url, quantity, isQuantity, semver and isSemver one unit per ten code points, rounded up', () => {
    const run = (lib: CelLibrary, signature: string, ...args: unknown[]) => units(() => {
      try {
        handler(lib, signature)(...args);
      } catch {
        // Refused input: the parse is charged all the same.
      }
    });
    for (const s of ['https:://kubernetes.io/', 'https://例え.jp/😀', '12Mi', '20', '1.0.0', '1234.56789012345.67890123456789', 'x'.repeat(10_000)]) {
      expect(run(urlLibrary, 'url(string): kubernetes.URL', s)).toBe(scan(size(s)));
      expect(run(quantityLibrary, 'quantity(string): kubernetes.Quantity', s)).toBe(scan(size(s)));
      expect(run(quantityLibrary, 'isQuantity(string): bool', s)).toBe(scan(size(s)));
      expect(run(semverLibrary, 'semver(string): kubernetes.Semver', s)).toBe(scan(size(s)));
      expect(run(semverLibrary, 'semver(string, bool): kubernetes.Semver', s, true)).toBe(scan(size(s)));
      expect(run(semverLibrary, 'isSemver(string): bool', s)).toBe(scan(size(s)));
      expect(run(semverLibrary, 'isSemver(string, bool): bool', s, true)).toBe(scan(size(s)));
      // isURL, image and isImage have no case in library/cost.go: the default unit, parsing is work.
      expect(run(urlLibrary, 'isURL(string): bool', s)).toBe(0);
      expect(run(imageLibrary, 'isImage(string): bool', s)).toBe(0);
      expect(run(imageLibrary, 'image(string): kubernetes.Image', s)).toBe(0);
    }
    // cost_test.go: isSemver("1.0.0") costs one (it was rounded down to nothing before).
    expect(run(semverLibrary, 'isSemver(string): bool', '1.0.0')).toBe(1);
  });

  it('charges the quantity, semver and URL accessors, arithmetic and == nothing themselves', () => {
    const q = handler(quantityLibrary, 'quantity(string): kubernetes.Quantity')('50k');
    for (const [signature, ...args] of [
      ['kubernetes.Quantity.sign(): int'], ['kubernetes.Quantity.isInteger(): bool'], ['kubernetes.Quantity.asInteger(): int'],
      ['kubernetes.Quantity.asApproximateFloat(): double'], ['kubernetes.Quantity.add(int): kubernetes.Quantity', 20n],
      ['kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', q], ['kubernetes.Quantity.mul(int): kubernetes.Quantity', 3n],
      ['kubernetes.Quantity.div(int): kubernetes.Quantity', 3n], ['kubernetes.Quantity.compareTo(kubernetes.Quantity): int', q],
      ['kubernetes.Quantity == kubernetes.Quantity', q],
    ] as const) {
      expect(units(() => handler(quantityLibrary, signature)(q, ...args)), signature).toBe(0);
    }
    const v = handler(semverLibrary, 'semver(string): kubernetes.Semver')('1.2.3');
    for (const signature of ['kubernetes.Semver.major(): int', 'kubernetes.Semver.compareTo(kubernetes.Semver): int', 'kubernetes.Semver == kubernetes.Semver']) {
      expect(units(() => handler(semverLibrary, signature)(v, v))).toBe(0);
    }
    const u = parseURL('https://example.com/a%20b?x=1&y=2') as URL;
    for (const signature of ['kubernetes.URL.getScheme(): string', 'kubernetes.URL.getHost(): string', 'kubernetes.URL.getEscapedPath(): string', 'kubernetes.URL.getQuery(): map<string, list<string>>', 'kubernetes.URL == kubernetes.URL']) {
      expect(units(() => handler(urlLibrary, signature)(u, u))).toBe(0);
    }
  });

  it('charges validate a regular expression of the format\'s MaxRegexSize over the string', () => {
    const formats = handlers(formatLibrary);
    const validate = formats.get('kubernetes.NamedFormat.validate(string): optional<list<string>>')!;
    const named = (name: string) => (formats.get(`FormatNamespace.${name}(): kubernetes.NamedFormat`) as () => Format)();
    const MAX: Record<string, number> = {
      dns1123Label: 30, dns1123Subdomain: 60, dns1035Label: 30, qualifiedName: 60, dns1123LabelPrefix: 30, dns1123SubdomainPrefix: 60,
      dns1035LabelPrefix: 30, labelValue: 40, uri: 357, uuid: 70, byte: 84, date: 71, datetime: 71,
    };
    for (const [name, max] of Object.entries(MAX)) {
      for (const s of ['', 'my-name', 'x'.repeat(300), '😀'.repeat(20)]) expect(units(() => validate(named(name) as never, s as never)), name).toBe(regex(size(s), max));
    }
    // cost_test.go: validating "my-name" as a subdomain costs 15 and as a label 8 (plus format.named and value()).
    expect(units(() => validate(named('dns1123Subdomain') as never, 'my-name' as never))).toBe(15);
    expect(units(() => validate(named('dns1123Label') as never, 'my-name' as never))).toBe(8);
    expect(units(() => (formats.get('kubernetes.NamedFormat == kubernetes.NamedFormat') as (a: Format, b: Format) => boolean)(named('uri'), named('uri')))).toBe(0);
  });
});

describe('through a compiled expression', () => {
  const environment = celEnvironment();
  /** The API server's units of `expression` with `s` bound. */
  const cost = (expression: string, s: unknown) => {
    const compiled = buildCel(expression, { environment, refuse: new Map() });
    const meter = new CelBudget(Number.MAX_SAFE_INTEGER);
    withMeter(meter, () => compiled.run({ s }, { cache: new Map() }));
    return meter.cost;
  };

  it('charges a library call what its formula gives for the input, over what the rest of the expression costs', () => {
    // The same expression on an empty input: its identifiers and calls cost the same, the formula gives 0.
    const table: [string, (s: string) => number][] = [
      ['s.lowerAscii()', (s) => scan(size(s))],
      ['s.replace("a", "b")', (s) => scan2(size(s))],
      ['s.split(",")', (s) => scan2(size(s))],
      ['s.indexOf("zz")', (s) => Math.floor(bytes(s) * 0.1)],
      ['s.matches("[a-z]+")', (s) => regex(size(s), 6) - regex(0, 6)],
      ['matches(s, "[a-z]+")', () => 0],
      ['isQuantity(s)', (s) => scan(size(s))],
      ['isIP(s)', (s) => scan(size(s))],
    ];
    for (const [expression, formula] of table) {
      for (const s of STRINGS) expect(cost(expression, s) - cost(expression, ''), `${expression} on ${s.slice(0, 12)}`).toBe(formula(s));
    }
  });

  it('charges a list function the traversal of the list bound to it', () => {
    const list = Array.from({ length: 1000 }, (_, i) => `item-${i}-abcdef`);
    expect(cost('s.isSorted()', list) - cost('s.isSorted()', [])).toBe(1000);
    expect(cost('sets.contains(s, s)', list) - cost('sets.contains(s, s)', [])).toBe(1000 * 1000);
    expect(cost('s.sort()', list) - cost('s.sort()', [])).toBe(Math.floor(1000 * 1000 * 2.1));
  });
});

describe('COSTED_FUNCTIONS', () => {
  /** The name cel-go's cost code sees for a signature: `ns.name` for a namespace's function. */
  function nameOf(signature: string): string {
    const head = signature.slice(0, signature.indexOf('('));
    const dot = head.lastIndexOf('.');
    if (dot < 0) return head;
    const owner = head.slice(0, dot);
    const name = head.slice(dot + 1);
    const namespace = /^([A-Za-z]+)Namespace$/.exec(owner);
    return namespace ? `${namespace[1]!.toLowerCase()}.${name}` : name;
  }

  it('names only functions the Kubernetes libraries define', () => {
    const defined = new Set<string>();
    for (const lib of KUBERNETES_LIBRARIES) {
      for (const signature of handlers(lib).keys()) if (!signature.includes(' == ')) defined.add(nameOf(signature));
      for (const key of Object.keys(lib.overrides ?? {})) defined.add(key.replace(/^\./, '').replace(/\/\d+$/, ''));
    }
    for (const name of COSTED_FUNCTIONS) expect(defined, name).toContain(name);
    // and not the ones the API server charges its default unit.
    for (const name of ['charAt', 'isURL', 'getHost', 'family', 'masked', 'prefixLength', 'add', 'sub', 'sign', 'major', 'compareTo', 'format.named', 'image', 'isImage']) {
      expect(COSTED_FUNCTIONS.has(name), name).toBe(false);
    }
  });

  it('names functions every one of which an expression calls in the environment', () => {
    const environment = celEnvironment();
    const samples: Record<string, string> = {
      indexOf: '"abc".indexOf("b") + [1].indexOf(1)', lastIndexOf: '"abc".lastIndexOf("b") + [1].lastIndexOf(1)',
      lowerAscii: '"A".lowerAscii()', upperAscii: '"a".upperAscii()', replace: '"a".replace("a", "b")', split: '"a,b".split(",")',
      substring: '"abc".substring(1)', trim: '" a ".trim()', join: '["a"].join(",")', format: '"%d".format([1])', 'strings.quote': 'strings.quote("a")',
      matches: '"a".matches("a")', find: '"a".find("a")', findAll: '"a".findAll("a")',
      isSorted: '[1].isSorted()', sum: '[1].sum()', min: '[1].min()', max: '[1].max()',
      'sets.contains': 'sets.contains([1], [1])', 'sets.equivalent': 'sets.equivalent([1], [1])', 'sets.intersects': 'sets.intersects([1], [1])',
      slice: '[1, 2].slice(0, 1)', flatten: '[[1]].flatten()', sort: '[2, 1].sort()', distinct: '[1, 1].distinct()', reverse: '[1, 2].reverse()', 'lists.range': 'lists.range(2)',
      ip: 'ip("10.0.0.1") == cidr("10.0.0.0/8").ip()', cidr: 'cidr("10.0.0.0/8")', isIP: 'isIP("10.0.0.1")', isCIDR: 'isCIDR("10.0.0.0/8")',
      'ip.isCanonical': 'ip.isCanonical("10.0.0.1")', containsIP: 'cidr("10.0.0.0/8").containsIP("10.0.0.1")', containsCIDR: 'cidr("10.0.0.0/8").containsCIDR("10.0.0.0/9")',
      url: 'url("https://example.com")', quantity: 'quantity("1Gi")', isQuantity: 'isQuantity("1Gi")', semver: 'semver("1.0.0")', isSemver: 'isSemver("1.0.0")',
      validate: 'format.dns1123Label().validate("a")',
    };
    expect(new Set(Object.keys(samples))).toEqual(COSTED_FUNCTIONS);
    for (const [name, expression] of Object.entries(samples)) {
      const compiled = buildCel(expression, { environment, refuse: new Map() });
      const meter = new CelBudget(Number.MAX_SAFE_INTEGER);
      withMeter(meter, () => compiled.run({}, { cache: new Map() }));
      expect(meter.cost, name).toBeGreaterThan(0);
    }
  });
});
