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
