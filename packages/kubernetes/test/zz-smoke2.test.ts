import { it } from 'vitest';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { loadKubernetesPolicies } from '@verdict/kubernetes';
import { PolicyLoadError } from '@verdict/core';
const L = '/tmp/vap-scratch/library/';
it('smoke2', () => {
  for (const cat of ['general', 'pod-security-policy']) for (const d of readdirSync(L + cat)) {
    const f = `${L}${cat}/${d}/template.yaml`;
    if (!existsSync(f) || !readFileSync(f, 'utf8').includes('K8sNativeValidation')) continue;
    try { loadKubernetesPolicies(readFileSync(f, 'utf8')); console.log('OK', d); }
    catch (e) { console.log('FAIL', d, (e as PolicyLoadError).problems?.map((p) => p.message.split('\n')[0]).join(' | ')); }
  }
});
