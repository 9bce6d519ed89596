import { Agent } from 'node:https';
import { describe, expect, it } from 'vitest';
import { PolicyLoadError, type PolicyDocument } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, type AdmissionReviewResponse } from '@verdict/kubernetes';
import { pod } from './helpers.js';
import { send, serve } from './https.js';

/**
 * Policy set number `version`: two policies that each warn with the version,
 * so an answer shows which set decided it, and that one set decided it whole.
 */
function versioned(version: number): PolicyDocument[] {
  return ['first', 'second'].map((name) => ({
    apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name },
    spec: { enforcementAction: 'warn', match: { kinds: [{ kinds: ['Pod'] }] }, validate: [{ name: 'tag', rule: false, message: `set ${version}` }] },
  }));
}

/** The set version an answer was decided by; throws when its two policies disagree. */
function versionOf(answer: AdmissionReviewResponse): number {
  const warnings = answer.response.warnings ?? [];
  const versions = new Set(warnings.map((w) => Number(/^\[(?:first|second)\] set (\d+)$/.exec(w)?.[1])));
  if (warnings.length !== 2 || versions.size !== 1) throw new Error(`expected one set to decide, got warnings ${JSON.stringify(warnings)}`);
  return [...versions][0]!;
}

const invalid: PolicyDocument[] = [{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'broken' }, spec: { validate: [{ name: 'r', rule: { nope: [] }, message: 'm' }] } }];

describe('webhook.update', () => {
  function setup(namespaceLabels?: (name: string) => Promise<Record<string, string>>) {
    const webhook = createAdmissionWebhook({ policies: versioned(0), ...(namespaceLabels ? { namespaceLabels } : {}) });
    const review = async () => versionOf(await webhook.review(admissionReviewFor(pod({ namespace: 'team' }))));
    return { webhook, review };
  }

  it('swaps the set: the next review is decided by the new policies, and policies returns them', async () => {
    const { webhook, review } = setup();
    expect(await review()).toBe(0);
    const next = webhook.update(versioned(1));
    expect(await review()).toBe(1);
    expect(webhook.policies).toBe(next);
  });

  it('refuses an invalid set with PolicyLoadError and keeps the current one', async () => {
    const { webhook, review } = setup();
    const before = webhook.policies;
    expect(() => webhook.update(invalid)).toThrow(PolicyLoadError);
    expect(webhook.policies).toBe(before);
    expect(await review()).toBe(0);
  });

  it('lets a review waiting on its namespace lookup finish on the set it started with', async () => {
    let release: (labels: Record<string, string>) => void = () => undefined;
    const { webhook, review } = setup(() => new Promise((resolve) => (release = resolve)));
    const pending = review();
    webhook.update(versioned(1));
    release({ team: 'a' });
    expect(await pending).toBe(0);
    const next = review();
    release({ team: 'a' });
    expect(await next).toBe(1);
  });
});

describe('webhook.update under load over HTTPS', () => {
  it('reloads 40 times while 10 connections send reviews: no failed request, each answer from exactly one set, an invalid set refused', async () => {
    const webhook = createAdmissionWebhook({ policies: versioned(0) });
    const served = await serve(webhook.listener);
    const agent = new Agent({ keepAlive: true, maxSockets: 10, ca: served.tls.cert });
    const body = JSON.stringify(admissionReviewFor(pod({ namespace: 'team' })));
    const seen: number[][] = Array.from({ length: 10 }, () => []);
    const failures: string[] = [];
    let reloading = true;
    try {
      const clients = seen.map(async (versions) => {
        while (reloading || versions.length < 5) {
          try {
            const reply = await send(served, { body, agent });
            if (reply.status !== 200) failures.push(`HTTP ${reply.status}`);
            else versions.push(versionOf(JSON.parse(reply.body) as AdmissionReviewResponse));
          } catch (error) {
            failures.push((error as Error).message);
          }
        }
      });
      let refused = 0;
      for (let version = 1; version <= 40; version++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (version === 20) {
          try {
            webhook.update(invalid);
          } catch (error) {
            if (error instanceof PolicyLoadError) refused += 1;
          }
          expect(versionOf(await webhook.review(admissionReviewFor(pod({ namespace: 'team' }))))).toBe(19);
        }
        webhook.update(versioned(version));
      }
      reloading = false;
      await Promise.all(clients);

      expect(failures).toEqual([]);
      expect(refused).toBe(1);
      const all = seen.flat();
      expect(all.length).toBeGreaterThan(40);
      expect(all.every((v) => Number.isInteger(v) && v >= 0 && v <= 40)).toBe(true);
      // Each connection sends one review at a time: the sets it sees never go back.
      for (const versions of seen) expect(versions).toEqual([...versions].sort((a, b) => a - b));
      expect(versionOf(JSON.parse((await send(served, { body, agent })).body) as AdmissionReviewResponse)).toBe(40);
      expect(new Set(all).size).toBeGreaterThan(5);
    } finally {
      agent.destroy();
      await served.close();
    }
  });
});
