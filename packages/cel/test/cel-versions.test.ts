/**
 * Kubernetes' CEL environment by version (k8s.io/apiserver/pkg/cel/environment/base.go) and the load-time
 * checks the API server makes when a policy is created (cel-go's validators): what a version lacks, mixed
 * list and map literals, invalid duration and timestamp literals are load errors pointing at the column.
 */
import { describe, expect, it } from 'vitest';
import { CelError, compileCel, ContainerImage, NEWEST_KUBERNETES_VERSION, parseContainerImage } from '../src/index.js';

function refusal(expression: string, kubernetesVersion?: string | false): string {
  try {
    compileCel(expression, kubernetesVersion === undefined ? {} : { kubernetesVersion });
  } catch (error) {
    expect(error).toBeInstanceOf(CelError);
    return (error as Error).message;
  }
  throw new Error(`expected ${expression} to be refused`);
}

const loads = (expression: string, kubernetesVersion?: string | false) => compileCel(expression, kubernetesVersion === undefined ? {} : { kubernetesVersion });

describe('Kubernetes CEL environment by version', () => {
  it('compiles in the newest release by default', () => {
    expect(NEWEST_KUBERNETES_VERSION).toBe('1.34');
    expect(loads('semver("1.2.3").major()').evaluate()).toBe(1);
    expect(loads('format.named("dns1123Label").hasValue()').evaluate()).toBe(true);
  });

  // [expression (true where it loads), the last version without it, the version it arrived in, the library named in the message]
  const arrivals: readonly [string, string, string, RegExp][] = [
    ['quantity("1Gi").isInteger()', '1.27', '1.28', /quantity library \(Kubernetes 1\.28\)/],
    ['isQuantity("1")', '1.27', '1.28', /quantity library/],
    ['{"a": 1}.?a.orValue(2) == 1', '1.27', '1.28', /optional types \(Kubernetes 1\.28\)/],
    ['optional.of(1).hasValue()', '1.27', '1.28', /optional types/],
    ['1 < 1.5', '1.27', '1.28', /CrossTypeNumericComparisons/],
    ['"%d".format([1]) == "1"', '1.28', '1.29', /ext\.Strings version 2/],
    ['strings.quote("a") == "\\"a\\""', '1.28', '1.29', /ext\.Strings version 2/],
    ['sets.contains([1, 2], [1])', '1.28', '1.29', /ext\.Sets \(Kubernetes 1\.29\)/],
    ['ip("10.0.0.1").family() == 4', '1.29', '1.30', /IP library \(Kubernetes 1\.30\)/],
    ['cidr("10.0.0.0/8").containsIP("10.1.2.3")', '1.29', '1.30', /CIDR library/],
    ['format.dns1123Label().validate("a").hasValue() == false', '1.30', '1.31', /format library \(Kubernetes 1\.31\)/],
    ['isSemver("1.2.3")', '1.32', '1.33', /semver library \(Kubernetes 1\.33\)/],
    ['semver("1.2.3").isLessThan(semver("1.3.0"))', '1.32', '1.33', /semver library/],
    ['[3, 1, 2].sort() == [1, 2, 3]', '1.33', '1.34', /ext\.Lists version 3 \(Kubernetes 1\.34\)/],
    ['lists.range(3) == [0, 1, 2]', '1.33', '1.34', /ext\.Lists version 3/],
    ['[[1], [2, 3]].flatten() == [1, 2, 3]', '1.33', '1.34', /ext\.Lists version 3/],
    ['[1, 2, 2, 1].distinct() == [1, 2] && [1, 2].reverse() == [2, 1] && [1, 2, 3].slice(1, 3) == [2, 3]', '1.33', '1.34', /ext\.Lists version 3/],
  ];
  for (const [expression, before, since, library] of arrivals) {
    it(`${expression}: refused by ${before}, loads from ${since}`, () => {
      expect(refusal(expression, before)).toMatch(new RegExp(`is not available in Kubernetes ${before.replace('.', '\\.')}'s CEL environment`));
      expect(refusal(expression, before)).toMatch(library);
      expect(loads(expression, since).evaluate()).toBe(true);
      expect(loads(expression).evaluate()).toBe(true);
    });
  }

  it('refuses two-variable comprehensions before 1.32, naming the library', () => {
    expect(refusal('[1].all(i, v, v > 0)', '1.31')).toMatch(/all\(\) with two variables .*ext\.TwoVarComprehensions \(Kubernetes 1\.32\)/);
    expect(refusal('{"a": 1}.transformMap(k, v, v + 1)', '1.31')).toMatch(/transformMap\(\) with two variables/);
  });

  it('refuses existsOne before 1.32 in either form, exists_one with one variable in none', () => {
    expect(refusal('[1].existsOne(x, x > 0)', '1.31')).toMatch(/existsOne\(\) is not available .*cel-go v0\.22.*\(Kubernetes 1\.32\)/);
    expect(refusal('[1].existsOne(i, x, x > 0)', '1.31')).toMatch(/existsOne\(\) with two variables/);
    expect(compileCel('[1].existsOne(x, x > 0)', { kubernetesVersion: '1.32' }).evaluate()).toBe(true);
    expect(compileCel('[1].exists_one(x, x > 0)', { kubernetesVersion: '1.23' }).evaluate()).toBe(true);
  });

  it('refuses what no Kubernetes release enables: cel.bind, the image library, cel-js\'s bytes methods, strings version 3', () => {
    expect(refusal('cel.bind(a, 1, a + 1)')).toMatch(/ext\.Bindings \(cel\.bind\): Kubernetes does not enable it/);
    expect(refusal('image("nginx").registry()')).toMatch(/image library: proposed for Kubernetes 1\.33 \(kubernetes\/kubernetes#130834\) and not merged/);
    expect(refusal('b"abc".hex()')).toMatch(/bytes\.hex\(\) .*cel-js extension/);
    expect(refusal('"abc".reverse()')).toMatch(/ext\.Strings version 3/);
    // verdict's full environment has them.
    expect(loads('cel.bind(a, 1, a + 1)', false).evaluate()).toBe(2);
    expect(loads('image("nginx").registry()', false).evaluate()).toBe('index.docker.io');
  });

  it('holds a method on a dyn receiver to the library its name belongs to', () => {
    expect(refusal('x.family() == 4', '1.29')).toMatch(/dyn\.family\(\) .*IP library/);
    expect(loads('x.family() == 4', '1.30').type).toBe('bool');
  });

  it('accepts versions as Kubernetes writes them and refuses anything else', () => {
    expect(loads('ip("::1").family() == 6', 'v1.30.2').evaluate()).toBe(true);
    expect(() => loads('true', '1.22')).toThrow(/kubernetesVersion must be a Kubernetes version from 1\.23/);
    expect(() => loads('true', 'latest')).toThrow(/kubernetesVersion must be a Kubernetes version/);
  });
});

describe('CEL load-time validation (cel-go validators as Kubernetes enables them)', () => {
  it('refuses list and map literals of mixed types at the first element that differs', () => {
    expect(refusal('[1, "a"].size() > 0')).toMatch(/expected type 'int' but found 'string' .*\(at column 5 of the expression\)/);
    expect(refusal('{"a": 1, "b": "x"}.size() > 0')).toMatch(/expected type 'int' but found 'string' .*column 15/);
    expect(refusal('{"a": 1, 2: 1}.size() > 0')).toMatch(/expected type 'string' but found 'int'/);
    expect(refusal('{"a": [1], "b": "x"}.size() > 0')).toMatch(/expected type 'list(<int>)?' but found 'string'/);
    expect(refusal('[dyn("a"), 1].size() > 0')).toMatch(/expected type 'dyn' but found 'int'/);
    expect(refusal('[1, null].size() > 0')).toMatch(/expected type 'int' but found 'null'/);
  });

  it('accepts homogeneous literals, literals in format arguments, and values whose type only the input decides', () => {
    expect(loads('[[], [1]].size()').evaluate()).toBe(2);
    expect(loads('"%s is %d".format(["a", 1])').evaluate()).toBe('a is 1');
    expect(loads('"%s".format([[1, "a"]])').evaluate()).toBe('[1, a]');
    // verdict has no OpenAPI schema: a field of the input is dyn, which agrees with anything.
    expect(loads('[object.name, "x"].size()').evaluate({ object: { name: 'a' } })).toBe(2);
    // verdict's full environment keeps mixed literals.
    expect(loads('[1, "a"].size()', false).evaluate()).toBe(2);
  });

  it('refuses a duration or timestamp literal that does not parse (from 1.29), pointing at the literal', () => {
    expect(refusal('duration("1x") > duration("0s")')).toMatch(/invalid duration argument.*\(at column 10 of the expression\)/);
    expect(refusal('timestamp("2023-13-01T00:00:00Z") > timestamp(0)')).toMatch(/invalid timestamp argument/);
    expect(refusal('duration("1x") > duration("0s")', false)).toMatch(/invalid duration argument/);
    // 1.28 compiled it and failed each evaluation.
    expect(() => loads('duration("1x") > duration("0s")', '1.28').evaluate()).toThrow(/1x/);
    expect(loads('duration(x) > duration("0s")').type).toBe('bool');
  });
});

describe('container image references (go-containerregistry name.ParseReference, weak validation)', () => {
  it('parse Docker Hub short names, registries with ports, tags and digests, and say why a reference is invalid', () => {
    const nginx = parseContainerImage('nginx') as ContainerImage;
    expect(nginx).toBeInstanceOf(ContainerImage);
    expect([nginx.registry, nginx.repository, nginx.tag, nginx.digest, nginx.identifier]).toEqual(['index.docker.io', 'library/nginx', 'latest', '', 'latest']);
    const digest = `sha256:${'a'.repeat(64)}`;
    const pinned = parseContainerImage(`localhost:5000/team/app:1.0@${digest}`) as ContainerImage;
    expect([pinned.registry, pinned.repository, pinned.tag, pinned.digest, pinned.identifier]).toEqual(['localhost:5000', 'team/app', '', digest, digest]);
    expect(parseContainerImage('registry.k8s.io/kube-apiserver-arm64:@')).toBe('could not parse reference: registry.k8s.io/kube-apiserver-arm64:@');
    expect(parseContainerImage('Nginx')).toBe('could not parse reference: Nginx');
  });
});
