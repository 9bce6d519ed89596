/**
 * The webhooks in an Express 5 app. `webhook.listener` is Express middleware:
 * mount it on a path. It reads the body itself, so no body parser is needed;
 * one in front (here `express.json()`, as an app serving other JSON routes
 * has) is fine: the listener takes the parsed body. Give the parser a limit
 * as large as the webhook's `maxBodyBytes` (6 MiB), since Express's default
 * is 100 KB and it answers larger bodies itself.
 */
import express, { type Express } from 'express';
import type { AdmissionWebhook } from '@verdict/kubernetes';

/** An Express app serving `POST /validate`, `POST /mutate` and `GET /healthz`; serve it with `https.createServer(tls, app)`. */
export function createExpressApp(webhooks: { validating: AdmissionWebhook; mutating: AdmissionWebhook }): Express {
  const app = express();
  app.use(express.json({ limit: '6mb' }));
  // `all`, not `post`: other methods get the webhook's 405 answer.
  app.all('/validate', webhooks.validating.listener);
  app.all('/mutate', webhooks.mutating.listener);
  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok\n');
  });
  return app;
}
