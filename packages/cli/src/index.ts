/**
 * @verdict/cli: the `verdict` command (`test`, `eval`, `explain`,
 * `validate`, `audit`, `diff`). {@link main} runs it in-process with your own output streams.
 * @packageDocumentation
 */
export { main } from './main.js';
export { EXIT, processIo, type Io } from './io.js';
