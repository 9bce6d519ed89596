/**
 * Literals, map keys and comparisons as cel-go has them: bytes literals (UTF-8 characters, octal and hex
 * escapes as bytes, raw bytes), bytes ordering, `.99`, backquoted field names, map keys of int, uint, bool
 * and string (1, 1u and 1.0 one key; a repeated or a double key an error), equality of int, uint and double
 * inside lists and maps, and ranges over maps with int keys. Cases from cel-spec's basic, comparisons,
 * fields, lists, macros and parse conformance files; each also runs through the planner and cel-js.
 */
import { describe } from 'vitest';
import { celCases, compileError, error } from './cel-helpers.js';

describe('bytes', () => {
  celCases([
    ['a character is its UTF-8 bytes', "b'ÿ' == b'\\303\\277' && size(b'ÿ') == 2", true],
    ['hex escapes are bytes', "b'\\xff' != b'ÿ' && size(b'\\xff') == 1", true],
    ['raw bytes keep backslashes', "size(br'\\x00') == 4 && bR'\\n' == b'\\\\n' && Rb'a' == b'a'", true],
    ['ordering', "b'a' < b'b' && b'' < b' ' && !(b'abc' < b'abc') && b'abc' <= b'abc' && b' ' > b'' && b'ab' >= b'a'", true],
    ['ordering by byte, not by character', "b'\\xe1' > b'b'", true],
  ]);
});

describe('numbers', () => {
  celCases([
    ['a double starting with its point', '.99 > 9.9e-1 || .99 == 0.99', true],
    ['with an exponent', '.5e1', 5],
    ['int and double compare as doubles', 'dyn(9223372036854775807) < 9223372036854775808.0', false],
    ['int and double compare as doubles, the other way', 'dyn(9223372036854775808.0) <= 9223372036854775807', true],
    ['uint in a list of ints', 'dyn(3u) in [5, 4, 3] && dyn(3) in [5u, 3u] && dyn(3.0) in [1u, 3u]', true],
    ['lists of mixed numbers', '[dyn(1.0), dyn(2.0), dyn(3)] == [dyn(1u), dyn(2), dyn(3u)]', true],
    ['a list index given as a uint', '[7, 8, 9][dyn(1u)]', 8],
  ]);
});

describe('backquoted field names', () => {
  celCases([
    ['a name with a slash', "{'/api/v1': true, '/api/v2': false}.`/api/v1`", true],
    ['a name with a dash', "{'content-type': 'application/json'}.`content-type`", 'application/json'],
    ['in has()', "has({'foo.txt': 32}.`foo.txt`) && !has({'foo.txt': 32}.`bar.csv`)", true],
    ['an annotation of an object', 'object.metadata.annotations.`app.kubernetes.io/name`', 'web'],
    ['through an optional selection', "object.metadata.annotations.?`example.com/missing`.orValue('none')", 'none'],
    ['not a method', "'a'.`size`()", compileError(/unexpected|Expected/i)],
    ['not empty', 'object.``', compileError(/quoted identifier/)],
  ], { object: { metadata: { annotations: { 'app.kubernetes.io/name': 'web' } } } });
});

describe('map keys', () => {
  celCases([
    ['int keys keep their type in a range', "{6: 'six', 7: 'seven', 8: 'eight'}.exists_one(k, k % 5 == 2)", true],
    ['and in a two-variable range', "{6: 'six', 7: 'seven'}.existsOne(k, v, k % 5 == 2 && v == 'seven')", true],
    ['uint keys', "{0u: 'one', 2u: 'happy'}[2u]", 'happy'],
    ['1, 1u and 1.0 are one key', '{dyn(1u): 1.0, dyn(2): 2.0, dyn(3u): 3.0}[3.0] == 3.0 && {dyn(1u): 1.0, dyn(2): 2.0}[2u] == 2.0 && {1u: 1.0}[1] == 1.0', true],
    ['in with mixed numbers', '3.0 in {dyn(1): 1, dyn(2): 2, dyn(3u): 3} && 2u in {dyn(1u): 1, dyn(2): 2} && !(dyn(4) in {1u: 1})', true],
    ['maps with mixed numbers are equal', '{dyn(1): dyn(1.0), dyn(2u): dyn(3u)} == {dyn(1u): dyn(1), dyn(2): dyn(3.0)}', true],
    ['[?] with a uint key', '{1: "a"}[?1u].orValue("none")', 'a'],
    ['a repeated bool key', '{true: 1, false: 2, true: 3}', error(/repeated key: true/)],
    ['a double key', '{3.3: 15.15, 1.0: 5.0}', error(/Unsupported map key type: double/)],
    ['a null key', '{null: false}', error(/Unsupported map key type: null/)],
    ['string keys as JSON', "{'a': dyn(1), 'b': dyn({'c': [2]})}", { a: 1, b: { c: [2] } }],
  ]);
});
