import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { describe, expectTypeOf, it } from 'vitest';
import { createAdmissionWebhook, type NodeListener } from '@verdict/kubernetes';

describe('webhook.listener types', () => {
  it('is a node:http request listener, usable by http and https servers', () => {
    const webhook = createAdmissionWebhook({ policies: [] });
    expectTypeOf(webhook.listener).toEqualTypeOf<NodeListener>();
    expectTypeOf(webhook.listener).toMatchTypeOf<RequestListener>();
    createHttpServer(webhook.listener);
    createHttpsServer({}, webhook.listener);
  });
});
