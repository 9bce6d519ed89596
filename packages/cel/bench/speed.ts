/**
 * Rough speed of the candidate CEL libraries on admission-style expressions over eight realistic Pods
 * (compiled once, evaluated in a loop). For the library choice only; the measured rows live in the `cel`
 * and `vap` jobs of test/bench.
 *
 *   npx -y pnpm@10 --filter @verdict/cel run bench:speed
 */
import { CANDIDATES } from './candidates.js';

/** Pod `i`: three containers from three registries, memory limits, labels (about 1 KB, like the bench's Pods). */
function pod(i: number): object {
  const app = `app-${i}`;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `${app}-x${i}`, namespace: `team-${i % 4}`, labels: { app, team: `team-${i % 4}`, tier: 'web' } },
    spec: {
      containers: ['gcr.io', 'quay.io', 'registry.corp.example'].map((registry, c) => ({
        name: `${app}-${c}`, image: `${registry}/platform/${app}:1.${i}.${c}`,
        resources: { limits: { memory: ['128Mi', '256Mi', '512Mi'][c], cpu: '500m' } },
        securityContext: { allowPrivilegeEscalation: false },
      })),
    },
  };
}

const EXPRESSIONS = [
  "object.metadata.labels.team == 'team-0' || object.metadata.name.startsWith('app-')",
  "object.spec.containers.all(c, c.image.startsWith('gcr.io/') || c.image.startsWith('quay.io/') || c.image.startsWith('registry.corp.example/'))",
  'object.spec.containers.all(c, has(c.resources.limits.memory))',
  'object.spec.containers.exists(c, c.securityContext.allowPrivilegeEscalation == true)',
];

const pods = Array.from({ length: 8 }, (_, i) => pod(i));
const N = 20_000;
console.log(`| expression | ${CANDIDATES.map((c) => `${c.name} ${c.version}`).join(' | ')} |`);
console.log(`|---|${CANDIDATES.map(() => '---:').join('|')}|`);
for (const expr of EXPRESSIONS) {
  const cells = CANDIDATES.map((c) => {
    let run: (b: Record<string, unknown>) => unknown;
    try {
      run = c.compileJson(expr);
      const result = run({ object: pods[0] });
      if (typeof result !== 'boolean') return `error: ${String((result as Error).message ?? result).slice(0, 40)}`;
    } catch {
      return 'n/a';
    }
    const bindings = pods.map((object) => ({ object }));
    for (let i = 0; i < 2000; i++) run(bindings[i % bindings.length]!);
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) run(bindings[i % bindings.length]!);
    return `${(Number(process.hrtime.bigint() - start) / N / 1000).toFixed(2)} µs`;
  });
  console.log(`| \`${expr}\` | ${cells.join(' | ')} |`);
}
