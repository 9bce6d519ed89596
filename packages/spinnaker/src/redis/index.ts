/**
 * @verdict/spinnaker/redis: Fiat's Redis layout as a permission source (and
 * writer), over a small RESP client with bounded timeouts. A separate entry so
 * that importing the evaluator never loads a Redis client.
 * @packageDocumentation
 */
export { RedisClient, RedisReplyError, type RedisConnectionOptions, type RedisReply } from './resp.js';
export { createRedisPermissionSource, type RedisPermissionSource, type RedisPermissionSourceOptions } from './source.js';
export { syncToRedis, writeUserPermission, type RedisWriteOptions } from './writer.js';
export { decodeResourceMap, encodeResourceMap, fiatRedisKeys, type FiatRedisLayout } from './layout.js';
export { MAX_DECOMPRESSED_BYTES, lz4CompressWithLength, lz4DecodeBlock, lz4DecompressWithLength, lz4EncodeBlock } from './lz4.js';
