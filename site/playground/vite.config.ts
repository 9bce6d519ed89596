/** `vite playground` (the `dev` script): the playground with live reload, from the workspace sources. */
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { playgroundConfig, repoRoot } from './build-config.js';

const { configFile: _none, ...config } = playgroundConfig(resolve(repoRoot, 'site/dist'));
export default defineConfig(config);
