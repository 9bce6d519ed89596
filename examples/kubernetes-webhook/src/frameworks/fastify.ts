/**
 * The webhooks in a Fastify 5 app. Fastify parses bodies itself; on the
 * webhook routes the body is left unread (a content-type parser that does
 * nothing, in a scope of its own) and the raw request goes to
 * `webhook.listener`, so the webhook's body limit, errors and answers apply
 * unchanged. `reply.hijack()` tells Fastify the listener answers.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AdmissionWebhook } from '@verdict/kubernetes';

/** A Fastify app over HTTPS serving `/validate`, `/mutate` and `GET /healthz`; start it with `app.listen()`. */
export function createFastifyApp(
  webhooks: { validating: AdmissionWebhook; mutating: AdmissionWebhook },
  options: { https: { cert: string; key: string } } & FastifyServerOptions,
): FastifyInstance {
  const app = Fastify(options);
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const [url, webhook] of [['/validate', webhooks.validating], ['/mutate', webhooks.mutating]] as const) {
      scope.all(url, (request, reply) => {
        reply.hijack();
        webhook.listener(request.raw, reply.raw);
      });
    }
  });
  app.get('/healthz', async (_request, reply) => reply.type('text/plain').send('ok\n'));
  return app;
}
