/**
 * One run of one job in this process: `child.ts <job> <full|quick> <out.json>`.
 * Started by main.ts; writes the job's group results as JSON.
 */
import { writeFileSync } from 'node:fs';
import { findJob } from './jobs.js';
import { FULL, QUICK } from './method.js';

const [id, mode, out] = process.argv.slice(2);
if (!id || !out) {
  console.error('usage: child.ts <job> <full|quick> <out.json>');
  process.exit(2);
}
const job = await findJob(id);
const groups = await job.run(mode === 'quick' ? QUICK : FULL);
writeFileSync(out, JSON.stringify(groups));
