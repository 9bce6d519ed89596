/** Ported from k8s.io/apiserver/pkg/cel/library/lists_test.go and cel-go ext/sets_test.go. */
import { describe } from 'vitest';
import { celCases, error } from './cel-helpers.js';

describe('Kubernetes CEL lists library', () => {
  celCases([
    ['isSorted', '[].isSorted() && [1].isSorted() && [1, 2, 3].isSorted() && ["a", "b"].isSorted() && [1.0, 2.0].isSorted()', true],
    ['not isSorted', '[1, 3, 2].isSorted()', false],
    ['sum empty', '[].sum()', 0],
    ['sum ints', '[1, 2, 3].sum()', 6],
    ['sum doubles', '[1.0, 2.5].sum()', 3.5],
    ['min/max', '[1, 3, 2].min() == 1 && [1, 3, 2].max() == 3 && ["b", "a"].min() == "a"', true],
    ['min of empty', '[].min()', error(/min called on empty list/)],
    ['max of empty', '[].max()', error(/max called on empty list/)],
    ['indexOf', '[1, 2, 3, 1].indexOf(1) == 0 && [1, 2, 3, 1].lastIndexOf(1) == 3 && ["a", "b"].indexOf("c") == -1', true],
    ['indexOf of lists', '[[1], [2]].indexOf([2])', 1],
    ['string indexOf still works', '"abc".indexOf("c")', 2],
    ['quantities sort', '[quantity("1Mi"), quantity("1M")].isSorted()', false],
  ]);
});

describe('CEL sets extension', () => {
  celCases([
    ['contains', 'sets.contains([1, 2, 3], [2, 3]) && !sets.contains([1], [2]) && sets.contains([1], [])', true],
    ['equivalent', 'sets.equivalent([1, 2], [2, 1, 1]) && !sets.equivalent([1], [1, 2])', true],
    ['intersects', 'sets.intersects([1, 2], [2, 3]) && !sets.intersects([1], [2]) && !sets.intersects([], [])', true],
    ['numbers compare across types', 'sets.contains([dyn(1), dyn(2.0)], [dyn(1.0), dyn(2)])', true],
  ]);
});

// cel-go ext/lists.go at version 3 (Kubernetes 1.34), with the examples and error messages of its documentation.
describe('CEL lists extension (version 3)', () => {
  celCases([
    ['slice', '[1, 2, 3, 4].slice(1, 3) == [2, 3] && [1, 2, 3, 4].slice(0, 4) == [1, 2, 3, 4] && [1, 2, 3, 4].slice(4, 4) == []', true],
    ['slice past the end', '[1, 2, 3, 4].slice(3, 5)', error(/cannot slice\(3, 5\), list is length 4/)],
    ['slice with a negative index', '[1, 2, 3, 4].slice(-1, 2)', error(/cannot slice\(-1, 2\), negative indexes not supported/)],
    ['slice inverted', '[1, 2, 3, 4].slice(2, 1)', error(/cannot slice\(2, 1\), start index must be less than or equal to end index/)],
    ['flatten one level', '[[1], [2, 3], []].flatten()', [1, 2, 3]],
    ['flatten to a depth', '[[[1]], [[2], [3, 4]]].flatten(2)', [1, 2, 3, 4]],
    ['flatten one of two levels', '[[[1]], [[2]]].flatten()', [[1], [2]]],
    ['flatten with a negative depth', '[[1]].flatten(-1)', error(/level must be non-negative/)],
    ['sort', '[3, 1, 2].sort() == [1, 2, 3] && ["b", "c", "a"].sort() == ["a", "b", "c"] && [2.5, 1.5].sort() == [1.5, 2.5]', true],
    ['sort of mixed types', '[dyn(1), dyn("b")].sort()', error(/list elements must have the same type/)],
    ['sort of lists', '[[2], [1]].sort()', error(/list elements must be comparable/)],
    ['distinct', '[1, 2, 2, 3, 3, 3].distinct() == [1, 2, 3] && ["b", "b", "c", "a", "c"].distinct() == ["b", "c", "a"]', true],
    ['distinct compares numbers across types', '[dyn(1), dyn(1.0), dyn(2)].distinct()', [1, 2]],
    ['reverse', '[5, 3, 1, 2].reverse()', [2, 1, 3, 5]],
    ['lists.range', 'lists.range(5)', [0, 1, 2, 3, 4]],
    ['lists.range of a negative size', 'lists.range(-1)', error(/lists.range: size must be non-negative, got -1/)],
  ]);
});
