/**
 * The playground's state in the URL: `#s=` and the state as JSON compressed
 * with lz-string (URI-safe). The fragment never leaves the browser, so a
 * shared link carries the case without any server seeing it.
 */
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from 'lz-string';
import type { AdapterId } from './run.js';

/** Everything a link reproduces. */
export interface PlaygroundState {
  adapter: AdapterId;
  policies: string;
  input: string;
  settings: string;
  /** The example the state started from (shown in the picker), when any. */
  example?: string;
}

const ADAPTER_IDS: readonly AdapterId[] = ['core', 'kubernetes', 'ci', 'fiat'];
/** Longest text a link may carry per editor, in characters (a link is not a file store). */
export const MAX_TEXT = 512 * 1024;
const VERSION = 1;

export function encodeState(state: PlaygroundState): string {
  const { adapter, policies, input, settings, example } = state;
  return `s=${compressToEncodedURIComponent(JSON.stringify({ v: VERSION, adapter, policies, input, settings, ...(example ? { example } : {}) }))}`;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_TEXT ? value : undefined;
}

/**
 * Reads a state from a URL fragment (with or without `#`). Returns undefined
 * when there is none, and an error message when there is one that cannot be
 * read (truncated link, other version, wrong shape): never a partial state.
 */
export function decodeState(hash: string): PlaygroundState | { error: string } | undefined {
  const match = /(?:^#?|&)s=([^&]*)/.exec(hash);
  if (!match) return undefined;
  let parsed: unknown;
  try {
    const json = decompressFromEncodedURIComponent(match[1] ?? '');
    if (!json) return { error: 'the link is damaged (it may have been cut short): the state in it cannot be read' };
    parsed = JSON.parse(json);
  } catch {
    return { error: 'the link is damaged: the state in it is not valid JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null) return { error: 'the link holds no playground state' };
  const record = parsed as Record<string, unknown>;
  if (record['v'] !== VERSION) return { error: `the link was made by another version of the playground (state version ${String(record['v'])}, expected ${VERSION})` };
  const adapter = ADAPTER_IDS.find((id) => id === record['adapter']);
  const policies = text(record['policies']);
  const input = text(record['input']);
  const settings = text(record['settings']);
  if (!adapter || policies === undefined || input === undefined || settings === undefined) {
    return { error: `the link's state is incomplete: expected adapter (${ADAPTER_IDS.join(', ')}), policies, input and settings texts of at most ${MAX_TEXT} characters` };
  }
  const example = typeof record['example'] === 'string' ? record['example'] : undefined;
  return { adapter, policies, input, settings, ...(example ? { example } : {}) };
}
