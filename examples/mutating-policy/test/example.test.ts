import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';

describe('Kyverno MutatingPolicy example', () => {
  it('patches each object as Kyverno\'s admission controller would', async () => {
    const answers = await run();
    expect(answers.map(({ object, allowed, patch }) => [object, allowed, patch])).toEqual([
      ['Pod/default/tools', true, [
        { op: 'add', path: '/spec/containers/0/imagePullPolicy', value: 'Always' },
        { op: 'add', path: '/spec/containers/0/resources', value: { requests: { cpu: '100m', memory: '128Mi' } } },
      ]],
      ['Deployment/team-a/web', true, [
        { op: 'add', path: '/spec/template/spec/containers/0/imagePullPolicy', value: 'Always' },
        { op: 'add', path: '/metadata/labels', value: { team: 'a' } },
      ]],
    ]);
  });

  it('lists each applying policy\'s result, autogen variants by name', async () => {
    const results = (await run()).map(({ results }) => results.map((r) => `${r.namespace ? `${r.namespace}/` : ''}${r.name}${r.autogen ? `@${r.autogen}` : ''}=${r.result}`));
    expect(results).toEqual([
      ['always-pull-images=pass', 'default-requests=pass'],
      ['always-pull-images@defaults=pass', 'team-a/team-label=pass'],
    ]);
  });
});
