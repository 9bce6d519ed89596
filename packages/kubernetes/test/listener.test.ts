import { Agent } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { admissionReviewFor, createAdmissionWebhook, verifyAdmissionResponse, type AdmissionReviewResponse, type AdmissionWebhookOptions } from '@verdict/kubernetes';
import { pod } from './helpers.js';
import { send, serve, type Reply, type SendOptions } from './https.js';

const denyPods = {
  apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'no-pods' },
  spec: { match: { kinds: [{ kinds: ['Pod'] }], namespaces: ['locked'] }, validate: [{ name: 'no', rule: false, message: 'no pods in {{namespace}}' }] },
};

async function setup(options: Partial<AdmissionWebhookOptions> = {}, wrap?: (listener: (req: IncomingMessage, res: ServerResponse) => void) => (req: IncomingMessage, res: ServerResponse) => void) {
  const webhook = createAdmissionWebhook({ policies: [denyPods], ...options });
  const served = await serve(wrap ? wrap(webhook.listener) : webhook.listener);
  /** What `handle` answers to the same request, as status, content type, allow header and parsed body. */
  const viaHandle = async (options: SendOptions) => {
    // As the HTTP client sends it: a Content-Length for a body in one piece, none for a chunked one.
    const body = Array.isArray(options.body) ? options.body.join('') : options.body;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (body !== undefined && !Array.isArray(options.body)) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    const init: RequestInit = { method: options.method ?? 'POST', headers };
    if (body !== undefined) init.body = body;
    const response = await webhook.handle(new Request(`${served.url}/`, init));
    return { status: response.status, type: response.headers.get('content-type'), allow: response.headers.get('allow'), body: (await response.json()) as unknown };
  };
  const viaListener = (reply: Reply) => ({ status: reply.status, type: reply.headers['content-type'], allow: reply.headers['allow'] ?? null, body: JSON.parse(reply.body) as unknown });
  return { webhook, served, viaHandle, viaListener };
}

const review = (namespace: string) => JSON.stringify(admissionReviewFor(pod({ name: 'p', namespace }), { uid: `uid-${namespace}` }));

describe('webhook.listener over HTTPS', () => {
  it.each<[string, SendOptions]>([
    ['a review it denies', { body: review('locked') }],
    ['a review it allows', { body: review('open') }],
    ['a review sent in small chunks', { body: review('locked').match(/.{1,40}/g)! }],
    ['a body that is not JSON', { body: '{"apiVersion":' }],
    ['an empty body', { body: '' }],
    ['a body that is not UTF-8', { body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }],
    ['a v1beta1 review', { body: '{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}}' }],
    ['a review with an invalid field', { body: review('locked').replace('"operation":"CREATE"', '"operation":"create"') }],
    ['a GET', { method: 'GET' }],
    ['a PUT with a body', { method: 'PUT', body: review('locked') }],
    ['a body over the limit by its Content-Length', { body: review('locked').padEnd(3000, ' ') }],
    ['a body over the limit while reading (no Content-Length)', { body: Array<string>(8).fill(' '.repeat(400)) }],
  ])('answers %s exactly as handle does', async (_what, request) => {
    const { served, viaHandle, viaListener } = await setup({ maxBodyBytes: 2500 });
    try {
      const reply = await send(served, request);
      expect(viaListener(reply)).toEqual(await viaHandle(request));
    } finally {
      await served.close();
    }
  });

  it('answers with a Content-Length (no chunked encoding) and keeps the connection for the next review', async () => {
    const { served } = await setup();
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: served.tls.cert });
    try {
      const first = await send(served, { body: review('locked'), agent });
      const second = await send(served, { body: review('open'), agent });
      expect(first.headers['content-length']).toBe(String(Buffer.byteLength(first.body)));
      expect(first.headers['transfer-encoding']).toBeUndefined();
      expect(second.reusedSocket).toBe(true);
      const answer = JSON.parse(first.body) as AdmissionReviewResponse;
      expect(verifyAdmissionResponse(answer, { uid: 'uid-locked' })).toEqual([]);
      expect(answer.response.status?.message).toBe('[no-pods] no pods in locked');
      expect((JSON.parse(second.body) as AdmissionReviewResponse).response.allowed).toBe(true);
    } finally {
      agent.destroy();
      await served.close();
    }
  });

  it('counts the Content-Length of an answer in UTF-8 bytes, multi-byte messages included', async () => {
    const policy = { ...denyPods, spec: { ...denyPods.spec, validate: [{ name: 'no', rule: false, message: 'kein Pod in {{namespace}} ü 🚫 \ud800' }] } };
    const { served } = await setup({ policies: [policy] });
    try {
      const reply = await send(served, { body: review('locked') });
      expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(reply.body)));
      expect((JSON.parse(reply.body) as AdmissionReviewResponse).response.status?.message).toBe('[no-pods] kein Pod in locked ü 🚫 \ud800');
    } finally {
      await served.close();
    }
  });

  it('closes the connection after refusing an oversized body instead of reading the rest', async () => {
    const { served } = await setup({ maxBodyBytes: 1000 });
    try {
      const reply = await send(served, { body: Array<string>(4).fill('x'.repeat(600)) });
      expect(reply.status).toBe(400);
      expect(reply.headers['connection']).toBe('close');
    } finally {
      await served.close();
    }
  });

  it('waits for an async namespace lookup before answering', async () => {
    const { served } = await setup({ namespaceLabels: async (name) => new Promise((resolve) => setTimeout(() => resolve({ team: name }), 20)) });
    try {
      const answer = JSON.parse((await send(served, { body: review('locked') })).body) as AdmissionReviewResponse;
      expect(answer.response.status?.message).toBe('[no-pods] no pods in locked');
    } finally {
      await served.close();
    }
  });
});

describe('webhook.listener as middleware after a body parser', () => {
  /** Reads the body the way express.json(), express.raw() or express.text() do, then calls the listener. */
  const parser = (as: 'json' | 'buffer' | 'text' | 'placeholder') => (listener: (req: IncomingMessage, res: ServerResponse) => void) =>
    (req: IncomingMessage, res: ServerResponse) => {
      const target = req as IncomingMessage & { body?: unknown };
      if (as === 'placeholder') {
        // Express 4's body-parser leaves {} without reading a body whose type it does not handle.
        target.body = {};
        listener(req, res);
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const bytes = Buffer.concat(chunks);
        target.body = as === 'json' ? JSON.parse(bytes.toString('utf8')) : as === 'text' ? bytes.toString('utf8') : bytes;
        listener(req, res);
      });
    };

  it.each(['json', 'buffer', 'text', 'placeholder'] as const)('reviews a body the framework read as %s', async (as) => {
    const { served } = await setup({}, parser(as));
    try {
      const reply = await send(served, { body: review('locked') });
      expect(reply.status).toBe(200);
      expect((JSON.parse(reply.body) as AdmissionReviewResponse).response.status?.message).toBe('[no-pods] no pods in locked');
    } finally {
      await served.close();
    }
  });

  it('applies maxBodyBytes to a raw or text body a framework read, and answers a parsed non-review with 400', async () => {
    for (const as of ['buffer', 'text'] as const) {
      const { served } = await setup({ maxBodyBytes: 1000 }, parser(as));
      try {
        const reply = await send(served, { body: review('locked').padEnd(1200, ' ') });
        expect(JSON.parse(reply.body)).toMatchObject({ code: 400, details: { causes: [{ reason: 'TOO_LARGE' }] } });
        // Fewer than 1000 UTF-16 units, more than 1000 UTF-8 bytes: the limit counts bytes.
        const wide = await send(served, { body: review('locked').replace('"uid-locked"', `"uid-${'é'.repeat(350)}"`) });
        expect(JSON.parse(wide.body)).toMatchObject({ code: 400, details: { causes: [{ reason: 'TOO_LARGE' }] } });
      } finally {
        await served.close();
      }
    }
    const { served } = await setup({}, parser('json'));
    try {
      const reply = await send(served, { body: '[1, 2]' });
      expect(JSON.parse(reply.body)).toMatchObject({ code: 400, message: 'expected an AdmissionReview object (got a list)' });
    } finally {
      await served.close();
    }
  });
});
