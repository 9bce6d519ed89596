/**
 * @verdict/cli: the `verdict` command (`test`, `eval`, `explain`,
 * `validate`, `audit`, `diff`). {@link main} runs it in-process with your own output streams.
 * @packageDocumentation
 */
export { main } from './main.js';
export { EXIT, CliError, colourEnabled, processIo, styleFor, type Io, type Style } from './io.js';
