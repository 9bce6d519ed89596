/**
 * Kyverno's own CEL libraries (kyverno/sdk `extensions/cel/libs`), as far as
 * they are pure: image references (`image()`, `parseImageReference()`,
 * `isImage()` and the reference's methods), `json.unmarshal`/`json.marshal`,
 * `yaml.parse`, `parseServiceAccount`, `math.round` and `listObjToMap`. The
 * libraries that read the cluster or the network (`resource`, `http`,
 * `globalContext`, `image.GetMetadata`) are load errors that say so, as are
 * the pure ones verdict does not implement yet.
 */
import type { CelConstant, CelFunction, CelType } from '@verdict/core';
import { parse as parseYaml } from 'yaml';
import { KyvernoImage, parseKyvernoImage } from './image.js';

class JsonNamespace {}
class YamlNamespace {}
class UserNamespace {}
class MathNamespace {}
class TransformNamespace {}

const IMAGE = 'kyverno.Image';

function image(reference: string): KyvernoImage {
  const parsed = parseKyvernoImage(reference);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

/** A CEL map (cel-js gives objects or `Map`s) as entries. */
function entries(value: unknown): Array<[unknown, unknown]> | undefined {
  if (value instanceof Map) return [...value.entries()];
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)) return Object.entries(value);
  return undefined;
}

/** A CEL value as JSON data (ints as numbers, maps as objects with their keys sorted, as Go's encoder writes them). */
function toJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Uint8Array) return btoa(String.fromCharCode(...value));
  const pairs = entries(value);
  if (!pairs) return value;
  return Object.fromEntries(pairs.map(([k, v]) => [String(k), toJson(v)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Go's `json.Marshal` escapes <, > and & (and the line separators) inside strings. */
function goJson(value: unknown): string {
  return JSON.stringify(toJson(value)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `system:serviceaccount:<namespace>:<name>` → its parts (both empty for other user names). */
function serviceAccount(user: string): Record<string, string> {
  const prefix = 'system:serviceaccount:';
  if (!user.startsWith(prefix)) return { Name: '', Namespace: '' };
  const rest = user.slice(prefix.length);
  const sep = rest.indexOf(':');
  return sep < 0 ? { Name: '', Namespace: '' } : { Namespace: rest.slice(0, sep), Name: rest.slice(sep + 1) };
}

/** Go's `math.Round`: half away from zero. */
function round(value: number, digits: bigint): number {
  const shift = 10 ** Number(digits);
  const scaled = value * shift;
  return (Math.sign(scaled) * Math.round(Math.abs(scaled))) / shift;
}

function listObjToMap(keys: unknown[], values: unknown[], keyName: string, valueName: string): Map<string, unknown> {
  if (keys.length !== values.length) throw new Error(`listObjToMap must take lists of equal length. list1: ${keys.length}, list2: ${values.length}`);
  const out = new Map<string, unknown>();
  keys.forEach((entry, i) => {
    const key = new Map(entries(entry) ?? []).get(keyName);
    if (typeof key !== 'string') throw new Error('the passed key name cannot be handled as a string in the key object list');
    const pairs = entries(values[i]);
    if (!pairs) throw new Error('object cannot be handled as a map string to any in the value object list');
    out.set(key, new Map(pairs).get(valueName) ?? null);
  });
  return out;
}

/** Types of the Kyverno library. */
export const KYVERNO_TYPES: readonly CelType[] = [
  { name: IMAGE, type: KyvernoImage },
  { name: 'kyverno.JsonNamespace', type: JsonNamespace },
  { name: 'kyverno.YamlNamespace', type: YamlNamespace },
  { name: 'kyverno.UserNamespace', type: UserNamespace },
  { name: 'kyverno.MathNamespace', type: MathNamespace },
  { name: 'kyverno.TransformNamespace', type: TransformNamespace },
];

/** The namespaces expressions call functions on. */
export const KYVERNO_CONSTANTS: readonly CelConstant[] = [
  { name: 'json', type: 'kyverno.JsonNamespace', value: new JsonNamespace() },
  { name: 'yaml', type: 'kyverno.YamlNamespace', value: new YamlNamespace() },
  { name: 'user', type: 'kyverno.UserNamespace', value: new UserNamespace() },
  { name: 'math', type: 'kyverno.MathNamespace', value: new MathNamespace() },
  { name: 'transform', type: 'kyverno.TransformNamespace', value: new TransformNamespace() },
];

const fn = (signature: string, handler: (...args: never[]) => unknown): CelFunction => ({ signature, handler });

/** The pure functions of Kyverno's libraries. */
export const KYVERNO_FUNCTIONS: readonly CelFunction[] = [
  fn(`image(string): ${IMAGE}`, image),
  fn(`parseImageReference(string): ${IMAGE}`, image),
  fn('isImage(string): bool', (s: string) => typeof parseKyvernoImage(s) !== 'string'),
  fn(`${IMAGE}.containsDigest(): bool`, (i: KyvernoImage) => i.digest !== ''),
  fn(`${IMAGE}.registry(): string`, (i: KyvernoImage) => i.registry),
  fn(`${IMAGE}.repository(): string`, (i: KyvernoImage) => i.repository),
  fn(`${IMAGE}.identifier(): string`, (i: KyvernoImage) => i.identifier),
  fn(`${IMAGE}.tag(): string`, (i: KyvernoImage) => i.tag),
  fn(`${IMAGE}.digest(): string`, (i: KyvernoImage) => i.digest),
  fn('kyverno.JsonNamespace.unmarshal(string): dyn', (_: JsonNamespace, s: string) => JSON.parse(s) as unknown),
  fn('kyverno.JsonNamespace.marshal(dyn): string', (_: JsonNamespace, v: unknown) => goJson(v)),
  // sigs.k8s.io/yaml reads YAML 1.1 (yes/no are booleans), then JSON: numbers are doubles.
  fn('kyverno.YamlNamespace.parse(string): dyn', (_: YamlNamespace, s: string) => parseYaml(s, { version: '1.1', maxAliasCount: 100 }) as unknown),
  fn('parseServiceAccount(string): map<string, string>', serviceAccount),
  fn('kyverno.UserNamespace.parseServiceAccount(string): map<string, string>', (_: UserNamespace, s: string) => serviceAccount(s)),
  fn('kyverno.MathNamespace.round(double, int): double', (_: MathNamespace, v: number, p: bigint) => round(v, p)),
  fn('listObjToMap(list<dyn>, list<dyn>, string, string): map<string, dyn>', listObjToMap),
  fn('kyverno.TransformNamespace.listObjToMap(list<dyn>, list<dyn>, string, string): map<string, dyn>', (...args: [TransformNamespace, unknown[], unknown[], string, string]) => listObjToMap(...(args.slice(1) as [unknown[], unknown[], string, string]))),
];

const NEEDS_CLUSTER = 'verdict evaluates without access to a cluster or the network, so a policy that needs it cannot be loaded (docs/kyverno.md#what-is-refused)';
const NOT_YET = 'is a Kyverno CEL function verdict does not implement yet (docs/kyverno.md#what-is-refused)';

/** Names that are load errors in a Kyverno policy, with the reason. */
export const KYVERNO_REFUSED: Readonly<Record<string, string>> = {
  resource: `Kyverno's resource library (resource.Get, resource.List, resource.Post) reads the cluster: ${NEEDS_CLUSTER}`,
  http: `Kyverno's http library (http.Get, http.Post) calls the network: ${NEEDS_CLUSTER}`,
  globalContext: `Kyverno's globalContext library reads GlobalContextEntries from the cluster: ${NEEDS_CLUSTER}`,
  'image.GetMetadata': `Kyverno's image data library (image.GetMetadata) fetches image manifests and configs from a registry: ${NEEDS_CLUSTER}`,
  ...Object.fromEntries(['sha1', 'sha256', 'md5', 'hash.sha1', 'hash.sha256', 'hash.md5', 'random', 'random.random', 'x509.decode', 'gzip.compress', 'gzip.decompress', 'time.now', 'time.truncate', 'time.toCron']
    .map((name) => [name, `${name}() ${NOT_YET}`])),
};
