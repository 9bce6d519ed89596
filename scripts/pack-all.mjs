// `pnpm pack:all`: builds every package under packages/ and writes one tarball
// each (`pnpm pack`, so `workspace:` ranges become real versions) to packed/
// at the repository root, or to --out <dir>. Until the first release this is
// how a project uses verdict from a clone: `npm install <the printed tarballs>`.
//   node scripts/pack-all.mjs [--out <dir>] [--no-build]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
let options;
try {
  ({ values: options } = parseArgs({ options: { out: { type: 'string' }, 'no-build': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
} catch (error) {
  console.error(`pack:all: ${error.message}; usage: pnpm pack:all [--out <dir>] [--no-build]`);
  process.exit(2);
}
if (options.help) {
  console.log('Usage: pnpm pack:all [--out <dir>] [--no-build]\n\nBuilds every @verdict package and writes its npm tarball to packed/ (or --out).');
  process.exit(0);
}
const out = resolve(process.cwd(), options.out ?? join(root, 'packed'));

/** pnpm as it runs this script (`npm_execpath`), or pnpm 10 through npx. */
function pnpm(args, cwd) {
  const execPath = process.env.npm_execpath;
  const [command, prefix] = execPath && /pnpm/.test(execPath) ? [process.execPath, [execPath]] : ['npx', ['-y', 'pnpm@10']];
  const result = spawnSync(command, [...prefix, ...args], { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    console.error(`pack:all: pnpm ${args.join(' ')} failed in ${relative(root, cwd) || '.'}${result.error ? `: ${result.error.message}` : ''}`);
    process.exit(1);
  }
  return result.stdout;
}

const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'package.json')))
  .map((entry) => ({ dir: join(root, 'packages', entry.name), manifest: JSON.parse(readFileSync(join(root, 'packages', entry.name, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true);

if (!options['no-build']) {
  console.log(`building ${packages.length} packages…`);
  pnpm(['-r', '--filter', './packages/*', 'run', 'build'], root);
}
mkdirSync(out, { recursive: true });
const tarballs = [];
for (const { dir, manifest } of packages) {
  // pnpm's tarball name: @scope/name@version -> scope-name-version.tgz
  const file = join(out, `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`);
  rmSync(file, { force: true });
  pnpm(['pack', '--pack-destination', out], dir);
  if (!existsSync(file)) {
    console.error(`pack:all: pnpm pack did not write ${file}`);
    process.exit(1);
  }
  tarballs.push(file);
  console.log(`  ${manifest.name}@${manifest.version} -> ${relative(process.cwd(), file)}`);
}
console.log(`\n${tarballs.length} tarballs in ${out}. In your project, install the ones you need (@verdict/core needs @verdict/cel; adapters need @verdict/core):\n`);
console.log(`  npm install ${tarballs.join(' ')}\n`);
