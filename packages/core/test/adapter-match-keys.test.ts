import { describe, expect, it } from 'vitest';
import { adapterOfMatchKey } from '@verdict/core';

describe('adapterOfMatchKey', () => {
  it("names the adapter whose match vocabulary has a key, and nothing for core's keys or unknown ones", () => {
    expect(adapterOfMatchKey('namespaceSelector')).toBe('kubernetes');
    expect(adapterOfMatchKey('projects')).toBe('ci');
    expect(adapterOfMatchKey('resourceNames')).toBe('spinnaker');
    for (const key of ['labels', 'fields', 'when', 'all', 'any', 'not', 'projectz', '__proto__']) expect(adapterOfMatchKey(key), key).toBeUndefined();
  });
});
