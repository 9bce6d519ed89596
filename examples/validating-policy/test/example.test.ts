import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';

describe('Kyverno ValidatingPolicy example', () => {
  it('answers each object as Kyverno\'s admission controller would', async () => {
    const answers = await run();
    expect(answers.map(({ object, response }) => [object, response.allowed, response.status?.message, response.warnings])).toEqual([
      ['Pod/default/tools', true, undefined, ['Policy trusted-registries failed: images must come from ghcr.io or registry.example.com']],
      ['Deployment/team-a/web', false, 'Policy disallow-latest-tag failed: Deployment web needs an image tag other than latest for: app; Policy require-owner failed: team-a objects need an owner label', undefined],
      ['CronJob/default/report', true, undefined, undefined],
    ]);
  });

  it('lists each applying policy\'s result, autogen variants by name', async () => {
    const results = (await run()).map(({ results }) => results.map((r) => `${r.namespace ? `${r.namespace}/` : ''}${r.name}${r.autogen ? `@${r.autogen}` : ''}=${r.result}`));
    expect(results).toEqual([
      ['disallow-latest-tag=pass', 'trusted-registries=fail'],
      ['disallow-latest-tag@defaults=fail', 'team-a/require-owner=fail', 'trusted-registries@defaults=pass'],
      ['disallow-latest-tag@cronjobs=pass'],
    ]);
  });
});
