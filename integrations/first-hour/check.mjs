// A new user's first hour, from the README and docs/getting-started.md only:
// 1. their `npm install` lines, run as written (the `../verdict/packed/` tarballs are this run's);
// 2. the webhook served with http.createServer, type-checked under strict with every maintained
//    @types/node major and with the newest TypeScript, then run; the matchers typed by tsconfig "types" and registered by
//    vitest's setupFiles alone;
// 3. `verdict test` on a suite, `verdict validate` on a policy for an adapter not installed, on the
//    mistakes of the trials (mistakes/) and on a project folder (`verdict validate .`);
// 4. @verdict/spinnaker alone installs no Redis client and no native LZ4, and says what to add.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const packed = process.env.VERDICT_PACKED;
const repository = process.env.VERDICT_REPOSITORY;
assert.ok(packed && repository, 'run through integrations/run.mjs (VERDICT_PACKED and VERDICT_REPOSITORY)');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const run = (command, args, cwd = process.cwd()) => execFileSync(command, args, { cwd, stdio: 'inherit' });

/** Every maintained @types/node major, pinned (the newest of each on npm when this was written). */
const TYPES_NODE = ['20.19.43', '22.20.5', '24.19.4', '25.9.9', '26.6.6'];
/** What `npm install --save-dev typescript` gives a new project when this was written: TypeScript 7, the native compiler. */
const TYPESCRIPT_NEWEST = '7.0.2';

/** The `npm install` lines of a Markdown file's `sh` blocks, with the README's tarball folder made this run's. */
function installLines(file) {
  const text = readFileSync(join(repository, file), 'utf8');
  const lines = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1].split('\n')) {
      const command = line.replace(/#.*$/, '').trim();
      if (command.startsWith('npm install ') && command.includes('packed/')) lines.push(command);
    }
  }
  assert.ok(lines.length > 0, `${file} shows no npm install line of the packed tarballs`);
  return lines.map((line) => line.replaceAll('../verdict/packed/', `${packed}/`).split(/\s+/).slice(1));
}

function installAsWritten(file, cwd) {
  for (const args of installLines(file)) {
    for (const arg of args) if (arg.endsWith('.tgz')) assert.ok(existsSync(arg), `${file} installs ${arg}, which pack:all did not write`);
    console.log(`first-hour: ${file}: npm ${args.join(' ').replaceAll(`${packed}/`, '../verdict/packed/')}`);
    run(npm, [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], cwd);
  }
}

// 1. The README's lines in this project, and getting-started's in a project of their own.
installAsWritten('README.md', process.cwd());
mkdirSync('getting-started', { recursive: true });
writeFileSync('getting-started/package.json', '{"name": "getting-started", "private": true, "type": "module"}\n');
installAsWritten('docs/getting-started.md', 'getting-started');
run(npx, ['--no-install', 'verdict', '--version'], 'getting-started');

// 2. Types with every @types/node major, then the compiled webhook and the matchers.
for (const version of TYPES_NODE) {
  run(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', `@types/node@${version}`]);
  console.log(`first-hour: tsc with @types/node ${version}`);
  run(npx, ['--no-install', 'tsc', '-p', 'tsconfig.json']);
}
// The same project with the newest TypeScript and the newest @types/node (one install, so npm keeps both).
run(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', `typescript@${TYPESCRIPT_NEWEST}`, `@types/node@${TYPES_NODE.at(-1)}`]);
console.log(`first-hour: tsc ${TYPESCRIPT_NEWEST} with @types/node ${TYPES_NODE.at(-1)}`);
run(npx, ['--no-install', 'tsc', '-p', 'tsconfig.json']);
run(process.execPath, ['dist/serve.js']);
run(npx, ['--no-install', 'vitest', 'run', '--config', 'vitest.config.mjs']);

// 3. The verdict command as the README shows it.
const { POLICIES } = await import('./dist/policies.js');
writeFileSync('suites/policies.yaml', POLICIES);
run(npx, ['--no-install', 'verdict', 'test', 'suites']);
const validate = spawnSync(npx, ['--no-install', 'verdict', 'validate', 'suites/ci-policy.yaml'], { encoding: 'utf8' });
assert.equal(validate.status, 2, `verdict validate on a CI policy without @verdict/ci: ${validate.stdout}${validate.stderr}`);
assert.match(validate.stderr, /@verdict\/ci, which is not installed: .*npm install --save-dev @verdict\/ci/);
console.log('first-hour: verdict validate names @verdict/ci when a CI policy meets an install without it');
// The mistakes the trials made, each named by the packed CLI: a misspelt override parameter, a policy no binding names,
// a wrong apiVersion.
const validateFile = (file) => spawnSync(npx, ['--no-install', 'verdict', 'validate', file], { encoding: 'utf8' });
const typo = validateFile('mistakes/override-typo.yaml');
assert.equal(typo.status, 1, `a misspelt override parameter loads: ${typo.stdout}${typo.stderr}`);
assert.match(typo.stdout, /override-typo\.yaml:23:33 .* at \/spec\/parameterSelection\/0\/parameters\/anyRegsitry: .*did you mean "anyRegistry"\?/);
const unbound = validateFile('mistakes/unbound-policy.yaml');
assert.equal(unbound.status, 1, `an unbound ValidatingAdmissionPolicy validates: ${unbound.stdout}${unbound.stderr}`);
assert.match(unbound.stdout, /ValidatingAdmissionPolicy "replica-limit" is named by no ValidatingAdmissionPolicyBinding .*\[UNBOUND_POLICY\]/);
const unboundTest = spawnSync(npx, ['--no-install', 'verdict', 'test', 'mistakes'], { encoding: 'utf8' });
assert.match(unboundTest.stdout, /⚠ mistakes\/unbound-policy\.yaml:4:18: ValidatingAdmissionPolicy "replica-limit" is named by no ValidatingAdmissionPolicyBinding/);
const apiVersion = validateFile('mistakes/wrong-api-version.yaml');
assert.equal(apiVersion.status, 1);
assert.deepEqual(apiVersion.stdout.trimEnd().split('\n').slice(-2), [
  '✗ mistakes/wrong-api-version.yaml:2:13 (ValidatingAdmissionPolicy/replica-limit) at /apiVersion: ValidatingAdmissionPolicy is a Kubernetes kind of admissionregistration.k8s.io/v1, admissionregistration.k8s.io/v1beta1, admissionregistration.k8s.io/v1alpha1, but this document has apiVersion "admission.k8s.io/v1"; set apiVersion: admissionregistration.k8s.io/v1',
  '1 problem: the policies do not load (kubernetes)',
]);
console.log('first-hour: verdict validate names a misspelt override parameter, an unbound policy and a wrong apiVersion; verdict test names the unbound policy');
// `verdict validate .` in a project folder: its package.json, package-lock.json and tsconfig.json are not policies.
writeFileSync('getting-started/tsconfig.json', '{"compilerOptions": {"strict": true}}\n');
writeFileSync('getting-started/memory-limits.yaml', POLICIES);
const folder = spawnSync(npx, ['--no-install', 'verdict', 'validate', '.'], { cwd: 'getting-started', encoding: 'utf8' });
assert.equal(folder.status, 0, `verdict validate . in a project: ${folder.stdout}${folder.stderr}`);
assert.match(folder.stdout, /^✓ \d+ documents?, 1 policy \(kubernetes\): valid$/m);
console.log('first-hour: verdict validate . in a project folder reads its policies, not package.json or tsconfig.json');

// 4. @verdict/spinnaker without Redis: no @redis/client, no lz4-napi; the Redis source says what to add.
mkdirSync('spinnaker', { recursive: true });
writeFileSync('spinnaker/package.json', '{"name": "spinnaker-only", "private": true, "type": "module"}\n');
const tarball = (name) => join(packed, readdirSync(packed).find((f) => f.startsWith(`verdict-${name}-`)));
// Core's own @verdict dependencies (e.g. @verdict/cel) are not on npm either: their tarballs come along.
const coreDependencies = Object.keys(JSON.parse(readFileSync(join(repository, 'packages/core/package.json'), 'utf8')).dependencies ?? {})
  .filter((name) => name.startsWith('@verdict/')).map((name) => tarball(name.slice('@verdict/'.length)));
run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...coreDependencies, tarball('core'), tarball('spinnaker')], 'spinnaker');
for (const name of ['@redis/client', 'lz4-napi']) assert.ok(!existsSync(join('spinnaker/node_modules', name)), `@verdict/spinnaker installed ${name}`);
writeFileSync('spinnaker/check.mjs', `
import assert from 'node:assert/strict';
import { createRedisPermissionSource } from '@verdict/spinnaker/redis';
import { createPermissionEvaluator } from '@verdict/spinnaker';
assert.equal(typeof createPermissionEvaluator, 'function');
const source = createRedisPermissionSource({ url: 'redis://127.0.0.1:1' });
await assert.rejects(source.getUserPermission('alice'), /@redis\\/client, which is not installed: npm install @redis\\/client/);
await source.close();
console.log('first-hour: @verdict/spinnaker loads without Redis packages and names @redis/client when a URL needs it');
`);
run(process.execPath, ['check.mjs'], 'spinnaker');

