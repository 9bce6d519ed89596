#!/usr/bin/env node
// The `verdict` executable. A committed file rather than dist/bin.js itself, so that a fresh
// `pnpm install` of the workspace links it before anything is built (no "Failed to create bin").
import '../dist/bin.js';
