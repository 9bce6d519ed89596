/**
 * Rough speed of the candidate CEL libraries on admission-style expressions over the bench's Pods
 * (compiled once, evaluated in a loop). For the library choice only; the measured rows live in the `cel`
 * bench job (src/workloads/cel.ts).
 *
 *   npx -y pnpm@10 --filter @verdict/bench run cel-speed
 */
import { CANDIDATES } from './candidates.js';
import { goodPods } from '../pods.js';

const EXPRESSIONS = [
  "object.metadata.labels.team == 'team-0' || object.metadata.name.startsWith('app-')",
  "object.spec.containers.all(c, c.image.startsWith('gcr.io/') || c.image.startsWith('quay.io/') || c.image.startsWith('registry.corp.example/'))",
  'object.spec.containers.all(c, has(c.resources.limits.memory))',
  'object.spec.containers.exists(c, c.securityContext.allowPrivilegeEscalation == true)',
];

const pods = goodPods();
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
