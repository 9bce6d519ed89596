/**
 * The LZ4 block format, framed as lz4-java's `LZ4CompressorWithLength` frames
 * it (what Fiat stores in `permissions-v2` keys): the original length as a
 * 4-byte little-endian integer, then one raw LZ4 block.
 */

/** The largest decompressed value accepted (64 MiB): a corrupt length prefix must not allocate gigabytes. */
export const MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

function fail(message: string): never {
  throw new Error(`invalid LZ4 data: ${message}`);
}

/** Decodes one raw LZ4 block into exactly `length` bytes. Throws on any malformed or truncated input. */
export function lz4DecodeBlock(src: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let ip = 0;
  let op = 0;
  while (ip < src.length) {
    const token = src[ip++]!;
    let literals = token >>> 4;
    if (literals === 15) {
      let b: number;
      do {
        if (ip >= src.length) fail('truncated literal length');
        b = src[ip++]!;
        literals += b;
      } while (b === 255);
    }
    if (ip + literals > src.length) fail('literals run past the end of the block');
    if (op + literals > length) fail('literals run past the declared length');
    out.set(src.subarray(ip, ip + literals), op);
    ip += literals;
    op += literals;
    if (ip === src.length) break;
    if (ip + 2 > src.length) fail('truncated match offset');
    const offset = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    if (offset === 0 || offset > op) fail(`match offset ${offset} points before the start of the output`);
    let match = token & 15;
    if (match === 15) {
      let b: number;
      do {
        if (ip >= src.length) fail('truncated match length');
        b = src[ip++]!;
        match += b;
      } while (b === 255);
    }
    match += 4;
    if (op + match > length) fail('match runs past the declared length');
    for (let i = 0; i < match; i++, op++) out[op] = out[op - offset]!;
  }
  if (op !== length) fail(`decoded ${op} bytes but the length prefix says ${length}`);
  return out;
}

function writeLength(out: number[], n: number): void {
  while (n >= 255) {
    out.push(255);
    n -= 255;
  }
  out.push(n);
}

/** Encodes bytes as one raw LZ4 block (greedy, 4-byte hash matches; the format's end-of-block rules are kept). */
export function lz4EncodeBlock(src: Uint8Array): Uint8Array {
  const out: number[] = [];
  const len = src.length;
  const table = new Int32Array(1 << 14).fill(-1);
  const read32 = (i: number) => (src[i]! | (src[i + 1]! << 8) | (src[i + 2]! << 16) | (src[i + 3]! << 24)) >>> 0;
  const emit = (anchor: number, end: number, offset: number, match: number) => {
    const literals = end - anchor;
    const tokenAt = out.length;
    out.push(0);
    let token = (literals >= 15 ? 15 : literals) << 4;
    if (literals >= 15) writeLength(out, literals - 15);
    for (let i = anchor; i < end; i++) out.push(src[i]!);
    if (match > 0) {
      out.push(offset & 255, offset >>> 8);
      const m = match - 4;
      token |= m >= 15 ? 15 : m;
      if (m >= 15) writeLength(out, m - 15);
    }
    out[tokenAt] = token;
  };
  let anchor = 0;
  let ip = 0;
  const mflimit = len - 12;
  const matchEnd = len - 5;
  while (ip <= mflimit) {
    const seq = read32(ip);
    const h = Math.imul(seq, 2654435761) >>> 18;
    const ref = table[h]!;
    table[h] = ip;
    if (ref >= 0 && ip - ref <= 65535 && read32(ref) === seq) {
      let match = 4;
      while (ip + match < matchEnd && src[ref + match] === src[ip + match]) match++;
      emit(anchor, ip, ip - ref, match);
      ip += match;
      anchor = ip;
    } else ip++;
  }
  emit(anchor, len, 0, 0);
  return Uint8Array.from(out);
}

/** lz4-java's `LZ4CompressorWithLength.compress`: 4-byte little-endian original length, then the block. */
export function lz4CompressWithLength(data: Uint8Array): Uint8Array {
  const block = lz4EncodeBlock(data);
  const out = new Uint8Array(4 + block.length);
  new DataView(out.buffer).setUint32(0, data.length, true);
  out.set(block, 4);
  return out;
}

/** lz4-java's `LZ4DecompressorWithLength.decompress`. Throws on malformed input or a length above {@link MAX_DECOMPRESSED_BYTES}. */
export function lz4DecompressWithLength(data: Uint8Array): Uint8Array {
  if (data.length < 4) fail(`${data.length} bytes is too short for the 4-byte length prefix`);
  const length = new DataView(data.buffer, data.byteOffset, data.byteLength).getInt32(0, true);
  if (length < 0 || length > MAX_DECOMPRESSED_BYTES) fail(`declared length ${length} is out of range (0 to ${MAX_DECOMPRESSED_BYTES})`);
  return lz4DecodeBlock(data.subarray(4), length);
}
