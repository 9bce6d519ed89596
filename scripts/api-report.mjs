#!/usr/bin/env node
/**
 * API reports: one `packages/<pkg>/api/<entry>.api.md` per entry point of each published
 * package, written by API Extractor from the declarations of the sources (emitted by tsc into
 * each package's .api-report folder, gitignored; no build needed). The reports are committed, so a change to a public
 * surface shows in review as a change to them.
 *
 *   node scripts/api-report.mjs            check: fails when a report is stale (part of `pnpm test`)
 *   node scripts/api-report.mjs --update   rewrite the reports after an intended change
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { update: { type: 'boolean' } } });
const update = values.update === true;
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');

/** Published packages and their entry points: `.` → `index`, `./redis` → `redis`, from the exports map. */
function packages() {
  return readdirSync(join(root, 'packages')).sort().flatMap((dir) => {
    const folder = join(root, 'packages', dir);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    if (manifest.private) return [];
    const entries = Object.entries(manifest.exports ?? {})
      .filter(([, target]) => typeof target === 'object' && target['@verdict/source'])
      .map(([key, target]) => ({ key: key.slice(2), name: key === '.' ? 'index' : key.slice(2).replaceAll('/', '-'), source: target['@verdict/source'] }));
    return [{ dir, folder, manifest, entries }];
  });
}

const all = packages();
// Not under node_modules: API Extractor takes anything there for another package and reports names only.
const cacheOf = (pkg) => join(pkg.folder, '.api-report');
const dtsOf = (pkg, source) => join(cacheOf(pkg), source.replace(/^\.\//, '').replace(/\.ts$/, '.d.ts'));

// Declarations of every package's sources, as its build tsconfig compiles them (rootDir: the package, so JSON imports fit).
for (const pkg of all) {
  rmSync(cacheOf(pkg), { recursive: true, force: true });
  execFileSync(process.execPath, [
    tsc, '-p', join(pkg.folder, 'tsconfig.build.json'), '--noEmit', 'false', '--declaration', '--emitDeclarationOnly',
    '--declarationMap', 'false', '--sourceMap', 'false', '--rootDir', pkg.folder, '--outDir', cacheOf(pkg),
  ], { stdio: 'inherit' });
}
// Imports of our other packages resolve to those declarations through a node_modules folder next to them, so
// API Extractor sees them as the external packages they are (no build needed, no TypeScript sources analysed).
for (const pkg of all) {
  const exports = Object.fromEntries(pkg.entries.map((e) => [e.name === 'index' ? '.' : `./${e.key}`, { types: `./${relative(cacheOf(pkg), dtsOf(pkg, e.source)).replaceAll('\\', '/')}` }]));
  // No `name`: a package's imports of its own name (type imports across its entries) go through node_modules too.
  writeFileSync(join(cacheOf(pkg), 'package.json'), JSON.stringify({ version: pkg.manifest.version, type: 'module', exports }));
}
for (const pkg of all) {
  mkdirSync(join(cacheOf(pkg), 'node_modules', '@verdict'), { recursive: true });
  for (const other of all) symlinkSync(cacheOf(other), join(cacheOf(pkg), 'node_modules', ...other.manifest.name.split('/')), 'junction');
}

let stale = 0;
let problems = 0;
for (const pkg of all) {
  const reportFolder = join(pkg.folder, 'api');
  mkdirSync(reportFolder, { recursive: true });
  let state;
  for (const entry of pkg.entries) {
    const config = ExtractorConfig.prepare({
      configObjectFullPath: join(pkg.folder, 'api-extractor.json'),
      packageJsonFullPath: join(pkg.folder, 'package.json'),
      configObject: {
        projectFolder: pkg.folder,
        mainEntryPointFilePath: dtsOf(pkg, entry.source),
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: 'ES2022', lib: ['ES2022'], module: 'ESNext', moduleResolution: 'Bundler',
              strict: true, resolveJsonModule: true, skipLibCheck: true, types: ['node'], esModuleInterop: true,
            },
            files: pkg.entries.map((e) => dtsOf(pkg, e.source)),
          },
        },
        apiReport: { enabled: true, reportFolder, reportTempFolder: join(cacheOf(pkg), 'temp'), reportFileName: entry.name, includeForgottenExports: false },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          // Errors in the declarations fail the check; API Extractor's findings (a type used but not exported, a link that
          // does not resolve) are written into the report, where review sees them.
          compilerMessageReporting: { default: { logLevel: 'warning' } },
          extractorMessageReporting: {
            default: { logLevel: 'none', addToApiReportFile: true },
            'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
            'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
          },
          tsdocMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
        },
      },
    });
    state ??= CompilerState.create(config, { additionalEntryPoints: pkg.entries.map((e) => dtsOf(pkg, e.source)) });
    const result = Extractor.invoke(config, {
      localBuild: update,
      compilerState: state,
      messageCallback: (message) => {
        message.handled = true;
        if (message.logLevel !== ExtractorLogLevel.Warning && message.logLevel !== ExtractorLogLevel.Error) return;
        if (message.messageId.startsWith('console-api-report')) return; // said below, in our words
        problems++;
        console.error(`api-report: ${pkg.manifest.name} (${entry.name}): ${message.text}${message.sourceFilePath ? ` at ${relative(root, message.sourceFilePath)}:${message.sourceFileLine}` : ''}`);
      },
    });
    // Every export carries TSDoc (members may rely on their names): API Extractor marks a top-level declaration without
    // a doc comment `// (undocumented)` in the report it generates.
    const generated = readFileSync(join(cacheOf(pkg), 'temp', `${entry.name}.api.md`), 'utf8').split('\n');
    generated.forEach((line, i) => {
      if (line !== '// (undocumented)' || !generated[i + 1]?.startsWith('export ')) return;
      problems++;
      const name = /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum|namespace) (\w+)/.exec(generated[i + 1])?.[1] ?? generated[i + 1];
      console.error(`api-report: ${pkg.manifest.name} (${entry.name}): export ${name} has no TSDoc comment; add one (what it is, units, defaults, special values)`);
    });
    const file = relative(root, join(reportFolder, `${entry.name}.api.md`));
    if (result.apiReportChanged && !update) {
      stale++;
      console.error(`api-report: ${file} is stale: the public API of ${pkg.manifest.name}${entry.name === 'index' ? '' : `/${entry.key}`} changed`);
    } else if (result.apiReportChanged) console.log(`api-report: wrote ${file}`);
  }
}
for (const pkg of all) rmSync(cacheOf(pkg), { recursive: true, force: true });
if (stale > 0) console.error(`api-report: ${stale} stale report(s). If the change is intended, run \`npx -y pnpm@10 api:update\` and commit packages/*/api/.`);
if (problems > 0) console.error(`api-report: ${problems} problem(s) in the declarations (see above).`);
process.exit(stale > 0 || problems > 0 ? 1 : 0);
