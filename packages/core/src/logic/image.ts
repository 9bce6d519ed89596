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
  return { registry: flat(registry), repository: flat(repository), tag: tag === null ? null : flat(tag), digest: digest === null ? null : flat(digest), name: flat(`${registry}/${repository}`) };
}

/**
 * `text` as a flat string of its own. A slice of 13 characters or more is a view into the longer
 * string in V8, and `Array.prototype.indexOf` (json-logic `in`) compares such views through the
 * runtime, about five times slower than flat strings; the parts are cached, so they are copied once.
 * A property key is an internalized, flat copy.
 */
function flat(text: string): string {
  return Object.keys({ [text]: 0 })[0] ?? text;
}
