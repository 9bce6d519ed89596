/** The examples the playground starts from: the repository's suites, read at build time (see site/scripts/examples.ts). */
import type { AdapterId } from './run.js';

/** One case of an example: an input, the adapter settings it needs, and what the suite expects. */
export interface ExampleCase {
  name: string;
  input: string;
  settings: string;
  expected?: 'allowed' | 'denied';
}

/** One suite of examples/: its policies (the files' text, joined) and its cases. */
export interface Example {
  /** Stable id: `<example directory>/<suite name slug>`. */
  id: string;
  title: string;
  /** The directory under examples/ (groups the picker). */
  group: string;
  /** Repository-relative path of the suite file. */
  source: string;
  adapter: AdapterId;
  policies: string;
  cases: ExampleCase[];
  /** The case the example opens on. */
  defaultCase: number;
}
