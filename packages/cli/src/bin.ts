#!/usr/bin/env node
import { main } from './main.js';
import { processIo } from './io.js';

void main(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
