/** Ported from k8s.io/apiserver/pkg/cel/library/format_test.go and semver_test.go. */
import { describe } from 'vitest';
import { celCases, error } from './cel-helpers.js';

describe('Kubernetes CEL format library', () => {
  celCases([
    ['valid label', 'format.dns1123Label().validate("my-name").hasValue()', false],
    ['invalid label', 'format.dns1123Label().validate("My_Name").value()', ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]],
    ['too long label', `format.dns1123Label().validate("${'a'.repeat(64)}").value()[0]`, 'must be no more than 63 characters'],
    ['subdomain', '!format.dns1123Subdomain().validate("example.com").hasValue() && format.dns1123Subdomain().validate("-x.com").hasValue()', true],
    ['dns1035 must start with a letter', 'format.dns1035Label().validate("1abc").hasValue() && !format.dns1035Label().validate("abc-1").hasValue()', true],
    ['prefix formats accept a trailing dash', '!format.dns1123LabelPrefix().validate("my-name-").hasValue() && format.dns1123Label().validate("my-name-").hasValue()', true],
    ['qualified name', '!format.qualifiedName().validate("example.com/MyName").hasValue() && format.qualifiedName().validate("a/b/c").hasValue()', true],
    ['label value', '!format.labelValue().validate("").hasValue() && format.labelValue().validate("-bad").hasValue()', true],
    ['uuid', '!format.uuid().validate("123e4567-e89b-12d3-a456-426614174000").hasValue() && format.uuid().validate("123").hasValue()', true],
    // kube-openapi's UUIDPattern makes the hyphens optional.
    ['uuid without hyphens', '!format.uuid().validate("123E4567E89B12D3A456426614174000").hasValue() && format.uuid().validate("123e4567-e89b12d3a456-42661417400").hasValue()', true],
    ['byte (base64)', '!format.byte().validate("aGVsbG8=").hasValue() && format.byte().validate("not base64").hasValue()', true],
    ['date and datetime', '!format.date().validate("2024-02-29").hasValue() && format.date().validate("2023-02-29").hasValue() && !format.datetime().validate("2024-01-01T10:00:00Z").hasValue()', true],
    ['named', 'format.named("dns1123Label").hasValue() && !format.named("nope").hasValue()', true],
    ['named validate', 'format.named("uri").value().validate("https://kubernetes.io").hasValue()', false],
  ]);
});

describe('Kubernetes CEL semver library', () => {
  celCases([
    ['parse', 'semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3', true],
    ['isSemver', 'isSemver("1.2.3-beta.1+build") && !isSemver("v1.2.3") && !isSemver("1.2") && !isSemver("01.2.3")', true],
    ['normalize', 'isSemver("v1.2", true) && semver("v01.2", true) == semver("1.2.0")', true],
    ['compare', 'semver("1.2.3").compareTo(semver("1.10.0"))', -1],
    ['prerelease sorts lower', 'semver("1.0.0-alpha").isLessThan(semver("1.0.0")) && semver("1.0.0-alpha.10").isGreaterThan(semver("1.0.0-alpha.9"))', true],
    ['build metadata is ignored', 'semver("1.0.0+a") == semver("1.0.0+b")', true],
    ['invalid', 'semver("1.2")', error(/No Major.Minor.Patch elements found/)],
  ]);
});
