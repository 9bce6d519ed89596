/**
 * Runs every scenario: sends each request through its controller chain and
 * prints the answers, checking them against the expected responses. Exits
 * non-zero when an answer differs.
 */
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadScenario, runScenario, SCENARIOS } from './scenarios.js';

export { loadScenario, runScenario, SCENARIOS, type Exchange, type Scenario, type ScenarioName } from './scenarios.js';

/** Prints every scenario's answers; returns the number of answers that differ from the expected ones. */
export function main(print: (line: string) => void): number {
  let failures = 0;
  for (const name of SCENARIOS) {
    print(`\n== ${loadScenario(name).title} (scenarios/${name})`);
    for (const { file, actual, expected } of runScenario(name)) {
      actual.forEach((response, i) => {
        const ok = isDeepStrictEqual(response, expected[i]);
        if (!ok) failures++;
        print(`${ok ? 'ok  ' : 'DIFF'} ${file} ${JSON.stringify(response)}`);
        if (!ok) print(`     expected ${JSON.stringify(expected[i])}`);
      });
    }
  }
  return failures;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const failures = main((line) => console.log(line));
  if (failures > 0) {
    console.error(`\n${failures} answer(s) differ from the expected responses`);
    process.exitCode = 1;
  }
}
