/**
 * Image references as Kyverno's `image()` / `parseImageReference()` read them: go-containerregistry's
 * `name.ParseReference`, as core's CEL image library parses them (parseContainerImage), as a type of its own
 * (`kyverno.Image`).
 */
import { ContainerImage, parseContainerImage } from '@verdict/core';

/** A parsed reference: a tag reference (`digest` empty) or a digest reference (`tag` empty). */
export class KyvernoImage extends ContainerImage {}

/** Parses a reference; a string is the reason it is not one. */
export function parseKyvernoImage(reference: string): KyvernoImage | string {
  const parsed = parseContainerImage(reference);
  return typeof parsed === 'string' ? parsed : new KyvernoImage(parsed.registry, parsed.path, parsed.tag, parsed.digest);
}
