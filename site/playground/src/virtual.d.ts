/** Written at build time by the playground's Vite plugin from the repository's suites. */
declare module 'virtual:verdict-examples' {
  import type { Example } from './examples.js';
  const examples: Example[];
  export default examples;
}
