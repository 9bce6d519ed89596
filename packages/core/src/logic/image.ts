/**
 * Container image references (`[registry[:port]/]path[:tag][@digest]`),
 * split the way the Docker reference grammar does: the first component is a
 * registry when it contains "." or ":" or is "localhost".
 */
export interface ImageReference {
  /** Registry host (and port); `docker.io` when the reference names none. */
  registry: string;
  /** Repository path without registry, tag or digest (`library/nginx`). */
  repository: string;
  /** The tag as written, or `null` when there is none. */
  tag: string | null;
  /** The digest (`sha256:…`), or `null`. */
  digest: string | null;
  /** `registry/repository`. */
  name: string;
}

/** The fields of an {@link ImageReference}. */
export type ImagePart = keyof ImageReference;

export const IMAGE_PARTS: readonly ImagePart[] = ['registry', 'repository', 'tag', 'digest', 'name'];

const cache = new Map<string, ImageReference>();

/**
 * Splits an image reference. Results are frozen and cached (bounded), so a
 * reference seen before costs one map lookup.
 */
export function parseImageReference(reference: string): ImageReference {
  let hit = cache.get(reference);
  if (hit === undefined) {
    hit = Object.freeze(parse(reference));
    if (cache.size >= 4096) cache.clear();
    cache.set(reference, hit);
  }
  return hit;
}

/**
 * One field of `parseImageReference(reference)`, computed directly: no object, no cache lookup.
 * A rule that reads one field (`{"get": [{"image": …}, "registry"]}`) uses it: a reference parsed
 * from a request is a new string each time, and hashing it for the cache costs more than the split.
 */
export function imagePart(reference: string, part: ImagePart): string | null {
  const b = bounds(reference);
  switch (part) {
    case 'registry':
      return registryOf(reference, b);
    case 'repository':
      return repositoryOf(reference, b);
    case 'name':
      return `${registryOf(reference, b)}/${repositoryOf(reference, b)}`;
    case 'tag':
      return b.tagAt < 0 ? null : reference.slice(b.tagAt + 1, b.end);
    case 'digest':
      return b.end === reference.length ? null : reference.slice(b.end + 1);
  }
}

function parse(reference: string): ImageReference {
  const b = bounds(reference);
  const registry = registryOf(reference, b);
  const repository = repositoryOf(reference, b);
  return {
    registry,
    repository,
    tag: b.tagAt < 0 ? null : reference.slice(b.tagAt + 1, b.end),
    digest: b.end === reference.length ? null : reference.slice(b.end + 1),
    name: `${registry}/${repository}`,
  };
}

/**
 * Where the parts are. The reference is `name[:tag][@digest]`: `end` is where the digest's "@" is (or
 * the length), `tagAt` the tag's ":" (a ":" after the last "/" of the part before the digest) or -1,
 * and `slash` the "/" after a registry: the first component is a registry when it contains "." or
 * ":" or is "localhost" (-1: none, the registry is docker.io).
 */
interface Bounds {
  end: number;
  tagAt: number;
  slash: number;
}

function bounds(reference: string): Bounds {
  const at = reference.indexOf('@');
  const end = at >= 0 ? at : reference.length;
  let lastSlash = -1;
  let colon = -1;
  for (let i = end - 1; i >= 0 && lastSlash < 0; i--) {
    const c = reference.charCodeAt(i);
    if (c === 0x2f) lastSlash = i;
    else if (c === 0x3a && colon < 0) colon = i;
  }
  const tagAt = colon > lastSlash ? colon : -1;
  const nameEnd = tagAt >= 0 ? tagAt : end;
  let slash = reference.indexOf('/');
  if (slash >= nameEnd) slash = -1;
  if (slash >= 0) {
    let registry = slash === 9 && reference.startsWith('localhost');
    for (let i = 0; i < slash && !registry; i++) {
      const c = reference.charCodeAt(i);
      registry = c === 0x2e || c === 0x3a;
    }
    if (!registry) slash = -1;
  }
  return { end, tagAt, slash };
}

function registryOf(reference: string, b: Bounds): string {
  return b.slash < 0 ? 'docker.io' : reference.slice(0, b.slash);
}

function repositoryOf(reference: string, b: Bounds): string {
  const repository = reference.slice(b.slash + 1, b.tagAt >= 0 ? b.tagAt : b.end);
  if (registryOf(reference, b) === 'docker.io' && !repository.includes('/')) return `library/${repository}`;
  return repository;
}
