import { createClient as createClient6, createCluster as createCluster6 } from '@redis/client';
import IoRedis5, { Cluster as IoCluster5 } from 'ioredis';
import IoRedis6 from 'ioredis-6';
import { createClient as createClient5, createClientPool as createPool5 } from 'redis';
import { describe, expectTypeOf, it } from 'vitest';
import { createRedisPermissionSource, syncToRedis, type RedisClientLike } from '@verdict/spinnaker/redis';

describe('the Redis clients users hand over', () => {
  it('accepts node-redis 5 and 6 clients, pools and clusters, and ioredis 5 and 6 clients and clusters, as they are typed', () => {
    expectTypeOf(createClient6()).toMatchTypeOf<RedisClientLike>();
    expectTypeOf(createCluster6({ rootNodes: [] })).toMatchTypeOf<RedisClientLike>();
    expectTypeOf(createClient5()).toMatchTypeOf<RedisClientLike>();
    expectTypeOf(createPool5()).toMatchTypeOf<RedisClientLike>();
    expectTypeOf(new IoRedis5()).toMatchTypeOf<RedisClientLike>();
    expectTypeOf(new IoCluster5([])).toMatchTypeOf<RedisClientLike>();
    expectTypeOf(new IoRedis6()).toMatchTypeOf<RedisClientLike>();
    expectTypeOf(createRedisPermissionSource).parameter(0).toHaveProperty('client').toEqualTypeOf<RedisClientLike | undefined>();
    expectTypeOf(syncToRedis).parameter(0).toEqualTypeOf<RedisClientLike>();
  });

  it('refuses what is not a Redis client', () => {
    expectTypeOf<{ pipeline(): void }>().not.toMatchTypeOf<RedisClientLike>();
    expectTypeOf<string>().not.toMatchTypeOf<RedisClientLike>();
  });
});
