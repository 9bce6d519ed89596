/** Ported from k8s.io/apiserver/pkg/cel/library/ip_test.go, cidr_test.go and urls_test.go. */
import { describe } from 'vitest';
import { celCases, error } from './cel-helpers.js';

describe('Kubernetes CEL IP library', () => {
  celCases([
    ['parse IPv4', 'string(ip("192.168.0.1"))', '192.168.0.1'],
    ['parse IPv6 canonically', 'string(ip("2001:DB8::0:1"))', '2001:db8::1'],
    ['IPv4 with leading zero', 'ip("192.168.0.01")', error(/leading zero/)],
    ['IPv4-mapped IPv6 is refused', 'ip("::ffff:1.2.3.4")', error(/IPv4-mapped IPv6 address is not allowed/)],
    ['zones are refused', 'ip("fe80::1%eth0")', error(/zone value is not allowed/)],
    ['isIP', 'isIP("1.2.3.4") && isIP("::1") && !isIP("1.2.3") && !isIP("foo") && !isIP("::ffff:1.2.3.4")', true],
    ['isCanonical', 'ip.isCanonical("2001:db8::1") && !ip.isCanonical("2001:DB8::1") && !ip.isCanonical("2001:db8:0:0:0:0:0:1")', true],
    ['family', '[ip("1.2.3.4").family(), ip("::1").family()]', [4, 6]],
    ['unspecified', 'ip("0.0.0.0").isUnspecified() && ip("::").isUnspecified() && !ip("1.2.3.4").isUnspecified()', true],
    ['loopback', 'ip("127.0.0.1").isLoopback() && ip("::1").isLoopback() && !ip("1.2.3.4").isLoopback()', true],
    ['link-local multicast', 'ip("224.0.0.1").isLinkLocalMulticast() && ip("ff02::1").isLinkLocalMulticast() && !ip("224.0.1.1").isLinkLocalMulticast()', true],
    ['link-local unicast', 'ip("169.254.1.1").isLinkLocalUnicast() && ip("fe80::1").isLinkLocalUnicast() && !ip("10.0.0.1").isLinkLocalUnicast()', true],
    ['global unicast', 'ip("10.0.0.1").isGlobalUnicast() && ip("2001:db8::1").isGlobalUnicast() && !ip("255.255.255.255").isGlobalUnicast() && !ip("ff00::1").isGlobalUnicast()', true],
    ['equality', 'ip("2001:db8::1") == ip("2001:DB8:0::1") && ip("1.2.3.4") != ip("1.2.3.5")', true],
  ]);
});

describe('Kubernetes CEL CIDR library', () => {
  celCases([
    ['parse', 'string(cidr("192.168.0.0/24"))', '192.168.0.0/24'],
    ['isCIDR', 'isCIDR("10.0.0.0/8") && isCIDR("::1/128") && !isCIDR("10.0.0.0/33") && !isCIDR("10.0.0.0") && !isCIDR("10.0.0.0/08")', true],
    ['containsIP', 'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1")) && cidr("192.168.0.0/24").containsIP("192.168.0.255") && !cidr("192.168.0.0/24").containsIP("192.168.1.1")', true],
    ['containsIP across families', 'cidr("::/0").containsIP("1.2.3.4")', false],
    ['containsCIDR', 'cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16") && !cidr("10.0.0.0/16").containsCIDR(cidr("10.0.0.0/8"))', true],
    ['ip keeps the address as written', 'string(cidr("192.168.0.1/24").ip())', '192.168.0.1'],
    ['masked', 'string(cidr("192.168.0.1/24").masked())', '192.168.0.0/24'],
    ['masked IPv6', 'string(cidr("2001:db8::ffff/32").masked())', '2001:db8::/32'],
    ['prefixLength', 'cidr("10.0.0.0/8").prefixLength()', 8],
    ['invalid', 'cidr("10.0.0.0/33")', error(/bad bits after slash/)],
  ]);
});

describe('Kubernetes CEL URL library', () => {
  celCases([
    ['scheme', 'url("https://kubernetes.io/").getScheme()', 'https'],
    ['host with port', 'url("https://kubernetes.io:80/").getHost()', 'kubernetes.io:80'],
    ['IPv6 host', '[url("https://[::1]:80/").getHost(), url("https://[::1]:80/").getHostname(), url("https://[::1]:80/").getPort()]', ['[::1]:80', '::1', '80']],
    ['no port', 'url("https://kubernetes.io/").getPort()', ''],
    ['absolute path has no host', 'url("/path").getHost()', ''],
    ['escaped path', 'url("https://example.com/path%20with%20spaces/").getEscapedPath()', '/path%20with%20spaces/'],
    ['query', 'url("https://example.com/?k=v&k=v2&k2").getQuery()', { k: ['v', 'v2'], k2: [''] }],
    ['isURL', 'isURL("https://kubernetes.io/") && isURL("/relative-path") && !isURL("../relative") && !isURL("not a url")', true],
    ['invalid url', 'url("../relative")', error(/invalid URI for request/)],
  ]);
});
