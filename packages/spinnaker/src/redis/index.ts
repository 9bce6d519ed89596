/**
 * @verdict/spinnaker/redis: Fiat's Redis layout as a permission source (and
 * writer), through your node-redis or ioredis client, or a node-redis client
 * made from a URL. A separate entry so that importing the evaluator never
 * loads a Redis client.
 * @packageDocumentation
 */
export type { IoRedisClientLike, NodeRedisClientLike, RedisClientLike, RedisTimeouts } from './client.js';
export { createRedisPermissionSource, type RedisPermissionSource, type RedisPermissionSourceOptions } from './source.js';
export { syncToRedis, writeUserPermission, type RedisWriteOptions } from './writer.js';
export { fiatRedisKeys, type FiatRedisLayout } from './layout.js';
