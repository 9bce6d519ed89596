/** Ported from k8s.io/apiserver/pkg/cel/library/regex_test.go and cel-spec `matches` cases, on core's RE2 engine. */
import { describe } from 'vitest';
import { celCases, error } from './cel-helpers.js';

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
    ['invalid pattern is a run-time error', '"abc".matches("(")', error(/invalid regular expression/)],
    ['backreferences are refused (RE2)', '"aa".matches("(a)\\\\1")', error(/backreferences/)],
  ]);
});
