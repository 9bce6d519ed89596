/**
 * The base of the readers of upstream test files (gator `Suite`, Kyverno CLI `Test`): one parsed
 * document, the problems found in it with file, JSON-pointer path and line, and the folder that
 * relative paths resolve against.
 */
import { sourceLocation } from '@verdict/core';
import type { SuiteProblem } from '../errors.js';

export abstract class DocumentReader {
  readonly problems: SuiteProblem[] = [];
  constructor(protected readonly doc: Record<string, unknown>, protected readonly file: string, protected readonly dir: string) {}

  /** Records a problem at `path` (a JSON pointer into the document), with its line and column when known. */
  report(path: string, message: string): void {
    const loc = sourceLocation(this.doc, path);
    this.problems.push({ file: this.file, path, message, ...(loc ? { line: loc.line, column: loc.column } : {}) });
  }

  /** The line of the value at `path` in the file, when known. */
  lineOf(path: string): number | undefined {
    return sourceLocation(this.doc, path)?.line;
  }
}
