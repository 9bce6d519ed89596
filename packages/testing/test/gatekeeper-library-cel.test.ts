/**
 * The sixteen gatekeeper-library policies with a K8sNativeValidation (CEL)
 * block (all of them at the copied commit), copied verbatim into test/fixtures/gatekeeper-library-cel (Apache-2.0,
 * see its NOTICE), pass their own gator suites, messages included.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatCaseFailure, runSuites } from '@verdict/testing';

const FIXTURES = resolve(fileURLToPath(import.meta.url), '../../../../test/fixtures/gatekeeper-library-cel');
const POLICIES = readdirSync(FIXTURES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();

describe('gatekeeper-library CEL policies', () => {
  it('are every upstream policy with a CEL block', () => {
    expect(POLICIES).toEqual([
      'allow-privilege-escalation', 'apparmor', 'capabilities', 'forbidden-sysctls', 'fsgroup', 'host-filesystem', 'host-namespaces', 'host-network-ports',
      'host-probes-lifecycle', 'host-process', 'privileged-containers', 'proc-mount', 'read-only-root-filesystem', 'requiredlabels', 'seccomp', 'seccompv2',
    ]);
  });

  it.each(POLICIES)('%s passes its own gator suite', async (policy) => {
    const report = await runSuites([join(FIXTURES, policy, 'suite.yaml')]);
    const failures = report.suites.flatMap((s) => [...(s.error ?? []), ...s.cases.filter((c) => c.status !== 'passed').map((c) => `${s.name} › ${c.name}: ${formatCaseFailure(c)}`)]);
    expect(failures).toEqual([]);
    expect(report.passed).toBeGreaterThan(0);
  });
});
