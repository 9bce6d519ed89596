// The README's demo command. Runs the seed 003 example against the package sources.
import { spawnSync } from 'node:child_process';

const result = spawnSync('npx', ['tsx', '--conditions=@verdict/source', 'examples/parameter-selection/src/index.ts'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
