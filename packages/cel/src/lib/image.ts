/**
 * Container image references as go-containerregistry's `name.ParseReference` reads them with its default
 * (weak) validation, which both the Kubernetes image library (k8s.io/apiserver/pkg/cel/library/image.go,
 * proposed for 1.33) and Kyverno's `image()` use: `index.docker.io` and `library/` for Docker Hub names, the
 * tag `latest` when none is written, a digest only as `sha256:<64 hex>`. Written out here because the CEL
 * value must answer exactly as theirs does, which the lenient split of json-logic's `parseImageReference`
 * does not. Also the CEL `image` library of verdict's full environment (no Kubernetes release enables it).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { fail } from '../runtime.js';
import { workOver } from './costed.js';
import type { CelLibrary } from './index.js';

/** A parsed reference: a tag reference (`digest` empty) or a digest reference (`tag` empty). */
export class ContainerImage {
  constructor(
    readonly registry: string,
    /** The repository as written (`nginx`); {@link repository} adds Docker Hub's `library/`. */
    readonly path: string,
    readonly tag: string,
    readonly digest: string,
  ) {}

  /** `RepositoryStr()`: `library/<name>` for a one-segment name on Docker Hub. */
  get repository(): string {
    return !this.path.includes('/') && this.registry === DEFAULT_REGISTRY ? `library/${this.path}` : this.path;
  }

  /** `Identifier()`: the tag, or the digest. */
  get identifier(): string {
    return this.digest === '' ? this.tag : this.digest;
  }
}

const DEFAULT_REGISTRY = 'index.docker.io';
const TAG_CHARS = /^[A-Za-z0-9_.-]{1,128}$/;
const REPOSITORY_CHARS = /^[a-z0-9_./-]{1,255}$/;
/** An RFC 3986 authority as `url.Parse("//" + name).Host` keeps it whole: host name or bracketed IPv6, optional port. */
const REGISTRY = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]*|\[[0-9A-Fa-f:.]+\])(?::[0-9]*)?$/;
const SHA256 = /^sha256:[a-f0-9]{64}$/;

type Parsed = ContainerImage | string;

function repository(name: string): { registry: string; path: string } | string {
  if (name === '') return 'a repository name must be specified';
  const slash = name.indexOf('/');
  const first = slash < 0 ? name : name.slice(0, slash);
  let registry = '';
  let path = name;
  if (slash >= 0 && (first === 'localhost' || /[.:]/.test(first))) {
    registry = first;
    path = name.slice(slash + 1);
  }
  if (!REPOSITORY_CHARS.test(path)) return `repository can only contain the characters \`abcdefghijklmnopqrstuvwxyz0123456789_-./\` and be 1 to 255 long: ${path}`;
  if (!REGISTRY.test(registry)) return `registries must be valid RFC 3986 URI authorities: ${registry}`;
  return { registry: registry === '' || registry === 'docker.io' ? DEFAULT_REGISTRY : registry, path };
}

function asTag(name: string): Parsed {
  const parts = name.split(':');
  let base = name;
  let tag = '';
  if (parts.length > 1 && !parts[parts.length - 1]!.includes('/')) {
    tag = parts[parts.length - 1]!;
    base = parts.slice(0, -1).join(':');
    if (tag === '') return `${name} must specify a tag name after the colon`;
    if (!TAG_CHARS.test(tag)) return `tag can only contain the characters \`A-Za-z0-9_-.\` and be 1 to 128 long: ${tag}`;
  }
  const repo = repository(base);
  return typeof repo === 'string' ? repo : new ContainerImage(repo.registry, repo.path, tag || 'latest', '');
}

function asDigest(name: string): Parsed {
  const parts = name.split('@');
  if (parts.length !== 2) return `a digest must contain exactly one '@' separator (e.g. registry/repository@digest) saw: ${name}`;
  const [base, digest] = parts as [string, string];
  if (!SHA256.test(digest)) return `unsupported or invalid digest: ${digest}`;
  const tagged = asTag(base);
  const repo = repository(typeof tagged === 'string' ? base : `${tagged.registry}/${tagged.path}`);
  return typeof repo === 'string' ? repo : new ContainerImage(repo.registry, repo.path, '', digest);
}

/** Parses a reference; a string is the reason it is not one. */
export function parseContainerImage(reference: string): ContainerImage | string {
  const tag = asTag(reference);
  if (typeof tag !== 'string') return tag;
  const digest = asDigest(reference);
  return typeof digest === 'string' ? `could not parse reference: ${reference}` : digest;
}

const TYPE = 'kubernetes.Image';

function image(reference: string): ContainerImage {
  workOver(reference.length);
  const parsed = parseContainerImage(reference);
  return typeof parsed === 'string' ? fail(parsed) : parsed;
}

function register(env: Environment): void {
  env.registerType(TYPE, ContainerImage);
  env.registerFunction(`image(string): ${TYPE}`, image);
  // The API server charges image, isImage and the accessors the default one unit (library/cost.go has no case for
  // them): parsing is verdict's work.
  env.registerFunction('isImage(string): bool', (s: string) => {
    workOver(s.length);
    return typeof parseContainerImage(s) !== 'string';
  });
  env.registerFunction(`${TYPE}.containsDigest(): bool`, (i: ContainerImage) => i.digest !== '');
  env.registerFunction(`${TYPE}.registry(): string`, (i: ContainerImage) => i.registry);
  env.registerFunction(`${TYPE}.repository(): string`, (i: ContainerImage) => i.repository);
  env.registerFunction(`${TYPE}.identifier(): string`, (i: ContainerImage) => i.identifier);
  env.registerFunction(`${TYPE}.tag(): string`, (i: ContainerImage) => i.tag);
  env.registerFunction(`${TYPE}.digest(): string`, (i: ContainerImage) => i.digest);
  // apiserver's Image.Equal: the same parsed reference.
  env.registerOperator(`${TYPE} == ${TYPE}`, (a: ContainerImage, b: ContainerImage) => a.registry === b.registry && a.path === b.path && a.tag === b.tag && a.digest === b.digest);
}

/** The image library (`image`, `isImage` and the reference's methods); left out when an adapter defines its own `image`. */
export const imageLibrary: CelLibrary = { name: 'image', register, globals: ['image', 'isImage'] };
