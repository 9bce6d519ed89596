import { it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parsePolicyDocuments } from '@verdict/core';
const parse = (t: string) => parsePolicyDocuments(t)[0]!;
import { createAdmissionWebhook, admissionReviewFor } from '@verdict/kubernetes';
const F = 'test/fixtures/gatekeeper-library-cel/';
it('smoke', async () => {
  for (const [dir, sample, objects] of [
    ['requiredlabels', 'all-must-have-owner', ['example_allowed', 'example_disallowed', 'example_disallowed_label_value']],
    ['capabilities', 'psp-capabilities-baseline', ['example_allowed', 'example_disallowed', 'disallowed_ephemeral']],
    ['seccomp', 'psp-seccomp', ['example_allowed', 'example_disallowed', 'example_disallowed2']],
  ] as const) {
    const text = readFileSync(`${F}${dir}/template.yaml`, 'utf8') + '\n---\n' + readFileSync(`${F}${dir}/samples/${sample}/constraint.yaml`, 'utf8');
    const hook = createAdmissionWebhook({ policies: text });
    for (const o of objects) {
      const obj = parse(readFileSync(`${F}${dir}/samples/${sample}/${o}.yaml`, 'utf8'));
      const r = await hook.review(admissionReviewFor(obj));
      console.log(dir, o, JSON.stringify(r.response.status?.message ?? 'allowed'));
    }
  }
});
