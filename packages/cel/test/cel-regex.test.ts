/** Ported from k8s.io/apiserver/pkg/cel/library/regex_test.go and cel-spec `matches` cases, on the package's RE2 engine (src/regex.ts). */
import { describe } from 'vitest';
import { celCases, compileError, error } from './cel-helpers.js';

describe('Kubernetes CEL regex library and matches', () => {
  celCases([
    ['find', '"abc 123".find("[0-9]+")', '123'],
    ['find no match', '"abc".find("[0-9]+")', ''],
    ['findAll', '"123 abc 456".findAll("[0-9]+")', ['123', '456']],
    ['findAll with limit', '"123 abc 456".findAll("[0-9]+", 1)', ['123']],
    ['findAll with limit 0', '"123 abc 456".findAll("[0-9]+", 0)', []],
    ['findAll with negative limit', '"123 abc 456".findAll("[0-9]+", -1)', ['123', '456']],
    ['findAll no match', '"abc".findAll("[0-9]+")', []],
    ['matches (method)', '"hubba".matches("ubb")', true],
    ['matches (global)', 'matches("hubba", "^h.*a$")', true],
    ['matches anchored', '"hubba".matches("^ubb")', false],
    // A constant pattern is compiled with the expression (as the API server's regex optimisation does).
    ['invalid constant pattern is a load error', '"abc".matches("(")', compileError(/invalid regular expression/)],
    ['backreferences are refused at load (RE2)', '"aa".matches("(a)\\\\1")', compileError(/backreferences/)],
    ['lookaround is refused at load in find', '"ab".find("a(?=b)")', compileError(/invalid regular expression/)],
    ['invalid constant pattern in the global matches', 'matches("abc", "[")', compileError(/invalid regular expression/)],
    ['invalid constant pattern in findAll with a limit', '"abc".findAll("(", 2)', compileError(/invalid regular expression/)],
  ]);
  celCases([
    ['an invalid pattern read from the input is a run-time error', '"abc".matches(pattern)', error(/invalid regular expression/)],
    ['a backreference read from the input is a run-time error', '"aa".find(backref)', error(/backreferences/)],
  ], { pattern: '(', backref: '(a)\\1' });
});
