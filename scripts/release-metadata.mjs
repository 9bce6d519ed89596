#!/usr/bin/env node
/**
 * Before publishing: sets `repository` in every published package.json to the GitHub
 * repository the release workflow runs in. npm checks it against the provenance statement
 * (which names the workflow's repository), so it is taken from the workflow itself
 * (GITHUB_SERVER_URL and GITHUB_REPOSITORY) rather than written down in advance.
 *
 *   node scripts/release-metadata.mjs [workspace root]
 */
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), '../..'));
const server = process.env.GITHUB_SERVER_URL;
const repository = process.env.GITHUB_REPOSITORY;
if (!server || !repository || !/^[\w.-]+\/[\w.-]+$/.test(repository)) {
  console.error('release-metadata: GITHUB_SERVER_URL and GITHUB_REPOSITORY (owner/name) must be set; run it in the release workflow');
  process.exit(1);
}
const url = `git+${server.replace(/\/+$/, '')}/${repository}.git`;

for (const dir of readdirSync(join(root, 'packages')).sort()) {
  const file = join(root, 'packages', dir, 'package.json');
  if (!existsSync(file)) continue;
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  if (manifest.private) continue;
  manifest.repository = { type: 'git', url, directory: `packages/${dir}` };
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`release-metadata: ${manifest.name} → ${url} (packages/${dir})`);
}
