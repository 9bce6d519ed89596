/** Ported from k8s.io/apiserver/pkg/cel/library/quantity_test.go (behaviour cases, not cost estimates). */
import { describe } from 'vitest';
import { celCases, compileError, error } from './cel-helpers.js';

describe('Kubernetes CEL quantity library', () => {
  celCases([
    ['parse', 'quantity("12Mi") == quantity("12582912")', true],
    ['parseInvalidSuffix', 'quantity("10Mo")', error(/quantities must match the regular expression/)],
    ['parseInvalidSuffixPassesRegex', 'quantity("10Mm")', error(/unable to parse quantity's suffix/)],
    ['isQuantity', 'isQuantity("20")', true],
    ['isQuantity_megabytes', 'isQuantity("20M")', true],
    ['isQuantity_mebibytes', 'isQuantity("20Mi")', true],
    ['isQuantity_invalidSuffix', 'isQuantity("20Mo")', false],
    ['isQuantity_passingRegex', 'isQuantity("10Mm")', false],
    ['isQuantity_noOverload', 'isQuantity([1, 2, 3])', compileError(/no matching overload/)],
    ['equality_reflexivity', 'quantity("200M") == quantity("200M")', true],
    ['equality_symmetry', 'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', true],
    ['equality_transitivity', 'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")', true],
    ['inequality', 'quantity("200M") == quantity("0.3G")', false],
    ['quantity_less', 'quantity("50M").isLessThan(quantity("50Mi"))', true],
    ['quantity_less_obvious', 'quantity("50M").isLessThan(quantity("100M"))', true],
    ['quantity_less_false', 'quantity("100M").isLessThan(quantity("50M"))', false],
    ['quantity_greater', 'quantity("50Mi").isGreaterThan(quantity("50M"))', true],
    ['quantity_greater_obvious', 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', true],
    ['quantity_greater_false', 'quantity("50M").isGreaterThan(quantity("100M"))', false],
    ['compare_equal', 'quantity("200M").compareTo(quantity("0.2G"))', 0],
    ['compare_less', 'quantity("50M").compareTo(quantity("50Mi"))', -1],
    ['compare_greater', 'quantity("50Mi").compareTo(quantity("50M"))', 1],
    ['add_quantity', 'quantity("50k").add(quantity("20")) == quantity("50.02k")', true],
    ['add_int', 'quantity("50k").add(20).isLessThan(quantity("50020"))', false],
    ['sub_quantity', 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', true],
    ['sub_int', 'quantity("50k").sub(20) == quantity("49980")', true],
    ['multiply', 'quantity("50k").mul(2) == quantity("100000")', true],
    ['divide_scaled', 'quantity("10k").div(2) == quantity("5000")', true],
    ['integer_division', 'quantity("10000").divInt(3) == quantity("3333")', true],
    ['arith_chain_1', 'quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980],
    ['arith_chain', 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20],
    ['as_integer', 'quantity("50k").asInteger()', 50000],
    ['as_integer_error', 'quantity("9999999999999999999999999999999999999G").asInteger()', error(/cannot convert value to integer/)],
    ['is_integer (too large)', 'quantity("9999999999999999999999999999999999999G").isInteger()', false],
    ['is_integer', 'quantity("50").isInteger()', true],
    ['as_float', 'quantity("50.703k").asApproximateFloat()', 50703],
    ['sign', '[quantity("-1m").sign(), quantity("0").sign(), quantity("3Ki").sign()]', [-1, 0, 1]],
    ['fractions are exact', 'quantity("500m").add(quantity("500m")) == quantity("1")', true],
  ]);
  celCases([
    ['divide_float_result (within 1e-4)', 'quantity("10000").div(3).asApproximateFloat() - 3333.3333 < 0.0001', true],
  ]);
});
