/**
 * LZ4 as Fiat stores `permissions-v2` values: lz4-java's
 * `LZ4CompressorWithLength` framing, a 4-byte little-endian original length
 * and then one raw LZ4 block. lz4-napi (lz4_flex) reads and writes exactly
 * this framing (`compress`/`uncompress` with the size prepended); this module
 * adds the checks data read from Redis needs before any memory is allocated.
 *
 * lz4-napi is an optional peer dependency (a native module): it is loaded by
 * {@link loadLz4} when a source or writer first uses the `v2` layout, so users
 * who never read Fiat's Redis, or read only its legacy layout, need not install it.
 */
import type * as Lz4 from 'lz4-napi';
import { SpinnakerError } from '../errors.js';

type Lz4Napi = typeof Lz4;

let codec: Lz4Napi | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads lz4-napi once. Throws `INVALID_CONFIG` naming the package to install
 * when it is missing.
 */
export function loadLz4(): Promise<void> {
  loading ??= import('lz4-napi').then(
    (module) => {
      // lz4-napi is CommonJS: its exports arrive as named exports, or on `default` in some loaders.
      codec = (typeof module.compressSync === 'function' ? module : (module as unknown as { default: Lz4Napi }).default);
    },
    (error: unknown) => {
      loading = undefined;
      throw new SpinnakerError(
        'INVALID_CONFIG',
        `Fiat's v2 Redis layout (LZ4-compressed values) needs lz4-napi, which is not installed: npm install lz4-napi@2.10.0 (or read the legacy layout: layout: 'legacy')`,
        { cause: error },
      );
    },
  );
  return loading;
}

function lz4(): Lz4Napi {
  if (!codec) throw new Error('lz4-napi is not loaded: await loadLz4() first');
  return codec;
}

/** The largest decompressed value accepted (64 MiB): a corrupt length prefix must not allocate gigabytes. */
export const MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;
/** LZ4 cannot expand a block more than about 255 times (a 1-byte match continuation encodes 255 bytes). */
const MAX_RATIO = 255;

function fail(message: string): never {
  throw new Error(`invalid LZ4 data: ${message}`);
}

/** lz4-java's `LZ4CompressorWithLength.compress`. */
export function lz4CompressWithLength(data: Uint8Array): Buffer {
  return lz4().compressSync(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
}

/**
 * lz4-java's `LZ4DecompressorWithLength.decompress`, for untrusted bytes: the
 * declared length must be at most {@link MAX_DECOMPRESSED_BYTES} and possible
 * for the block's size, and the block must decode to exactly that length.
 * Linear in the output. Throws `invalid LZ4 data: …` otherwise.
 */
export function lz4DecompressWithLength(data: Uint8Array): Buffer {
  if (data.length < 4) fail(`${data.length} bytes is too short for the 4-byte length prefix`);
  const length = new DataView(data.buffer, data.byteOffset, data.byteLength).getInt32(0, true);
  if (length < 0 || length > MAX_DECOMPRESSED_BYTES) fail(`declared length ${length} is out of range (0 to ${MAX_DECOMPRESSED_BYTES})`);
  if (length > (data.length - 4) * MAX_RATIO + 16) fail(`declared length ${length} is more than a ${data.length - 4}-byte block can hold`);
  let out: Buffer;
  try {
    out = lz4().uncompressSync(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch (error) {
    fail((error as Error).message);
  }
  if (out.length !== length) fail(`decoded ${out.length} bytes but the length prefix says ${length}`);
  return out;
}
