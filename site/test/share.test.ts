import { describe, expect, it } from 'vitest';
import { compressToEncodedURIComponent } from 'lz-string';
import { decodeState, encodeState, MAX_TEXT, type PlaygroundState } from '../playground/src/share.js';

function setup(): PlaygroundState {
  return { adapter: 'kubernetes', policies: 'kind: Policy\n# ünïcode ✓\n', input: '{"a": 1}', settings: 'namespaces: {}', example: 'kubernetes-webhook/x' };
}

const link = (value: unknown) => `#s=${compressToEncodedURIComponent(JSON.stringify(value))}`;

describe('the playground state in a link', () => {
  it('round-trips the adapter, the three texts and the example', () => {
    const state = setup();
    expect(decodeState(`#${encodeState(state)}`)).toEqual(state);
  });

  it('is absent from a link without a state', () => {
    expect(decodeState('')).toBeUndefined();
    expect(decodeState('#other=1')).toBeUndefined();
  });

  it('reports a cut-short link instead of restoring part of it', () => {
    const encoded = encodeState(setup());
    const decoded = decodeState(`#${encoded.slice(0, encoded.length - 20)}`);
    expect(decoded).toEqual({ error: expect.stringMatching(/damaged/) });
  });

  it('refuses a state of another version, another adapter or oversized texts', () => {
    const state = { v: 1, ...setup() };
    expect(decodeState(link({ ...state, v: 2 }))).toEqual({ error: expect.stringMatching(/another version/) });
    expect(decodeState(link({ ...state, adapter: 'opa' }))).toEqual({ error: expect.stringMatching(/incomplete: expected adapter \(core, kubernetes, ci, fiat\)/) });
    expect(decodeState(link({ ...state, input: 'x'.repeat(MAX_TEXT + 1) }))).toEqual({ error: expect.stringMatching(/at most/) });
  });

  it('keeps only the known fields of a crafted state', () => {
    const decoded = decodeState(link({ v: 1, ...setup(), __proto__: { polluted: true }, extra: 1 }));
    expect(decoded).toEqual(setup());
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
