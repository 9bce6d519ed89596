import { beforeAll, describe, expect, it } from 'vitest';
import { loadLz4, lz4CompressWithLength, lz4DecompressWithLength, MAX_DECOMPRESSED_BYTES } from '../src/redis/lz4.js';

// lz4-napi is an optional peer, loaded on first use; these tests call the codec directly.
beforeAll(() => loadLz4());

// A Fiat-style applications map compressed by the reference LZ4 implementation (lz4 1.9.4, `lz4 -l -9`),
// framed as lz4-java's LZ4CompressorWithLength does: little-endian original length (303), then the block.
const REFERENCE = '2f010000' + 'f6057b22636865636b6f7574223a7b226e616d65223a1300d02c227065726d697373696f6e732100f50352454144223a5b226465762d7465616d222c0b00282d320d00a033225d2c2257524954452f00506f7073222c0600202d3218007f45584543555445490015107d0f00407461696c8300357d7d2ca0007f2d63616e617279ba0000041a000fc1001c0cb400087b00503a7b7d7d7d';
const REFERENCE_JSON = '{"checkout":{"name":"checkout","permissions":{"READ":["dev-team","dev-team-2","dev-team-3"],"WRITE":["ops","ops-2"],"EXECUTE":["dev-team","dev-team-2","dev-team-3"]},"details":{}},"checkout-canary":{"name":"checkout-canary","permissions":{"READ":["dev-team","dev-team-2"],"WRITE":["ops"]},"details":{}}}';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('LZ4 with length prefix', () => {
  it('decodes a block written by the reference LZ4 implementation', () => {
    expect(lz4DecompressWithLength(Buffer.from(REFERENCE, 'hex')).toString('utf8')).toBe(REFERENCE_JSON);
  });

  it('writes the original length as a 4-byte little-endian prefix', () => {
    const out = lz4CompressWithLength(bytes(REFERENCE_JSON));
    expect([...out.subarray(0, 4)]).toEqual([0x2f, 0x01, 0x00, 0x00]);
    expect(out.length).toBeLessThan(REFERENCE_JSON.length);
  });

  it('round-trips empty, short, long-literal, long-match and random inputs', () => {
    let seed = 7;
    const random = Uint8Array.from({ length: 5000 }, () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 255);
    const inputs = [new Uint8Array(0), bytes('a'), bytes('abcdefghijkl'), bytes('x'.repeat(1000)), bytes('0123456789abcdefghij'.repeat(300)), random, bytes(REFERENCE_JSON)];
    for (const input of inputs) expect(new Uint8Array(lz4DecompressWithLength(lz4CompressWithLength(input)))).toEqual(input);
  });

  it('rejects truncated, inconsistent and hostile inputs before allocating their declared length', () => {
    const good = lz4CompressWithLength(bytes('hello hello hello hello hello'));
    expect(() => lz4DecompressWithLength(good.subarray(0, 3))).toThrow('too short for the 4-byte length prefix');
    expect(() => lz4DecompressWithLength(good.subarray(0, good.length - 2))).toThrow(/^invalid LZ4 data: /);
    expect(() => lz4DecompressWithLength(Uint8Array.from([0xff, 0xff, 0xff, 0x7f, 0]))).toThrow('out of range');
    expect(() => lz4DecompressWithLength(Uint8Array.from([0xff, 0xff, 0xff, 0x00, 0]))).toThrow('more than a 1-byte block can hold');
    expect(() => lz4DecompressWithLength(Uint8Array.from([8, 0, 0, 0, 0x14, 0x61, 9, 0]))).toThrow(/^invalid LZ4 data: /);
    expect(() => lz4DecompressWithLength(Uint8Array.from([2, 0, 0, 0, 0x10, 0x61]))).toThrow('decoded 1 bytes but the length prefix says 2');
    expect(MAX_DECOMPRESSED_BYTES).toBe(64 * 1024 * 1024);
  });
});
