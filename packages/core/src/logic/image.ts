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

function parse(reference: string): ImageReference {
  let rest = reference;
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | null = null;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const slash = rest.indexOf('/');
  let registry = 'docker.io';
  let repository = rest;
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost') {
      registry = first;
      repository = rest.slice(slash + 1);
    }
  }
  if (registry === 'docker.io' && !repository.includes('/')) repository = `library/${repository}`;
  return { registry, repository, tag, digest, name: `${registry}/${repository}` };
}
