/**
 * The Node request listener `(req, res)`: for `http.createServer`,
 * `https.createServer`, and Express or Connect as middleware. Same body
 * limit, errors and answers as the Fetch handler (http.ts), without Fetch
 * objects: the body is gathered from `data` events (no copy for a single
 * chunk), decoded and parsed once, and the answer written with one
 * `writeHead` and one `end`. It imports nothing from Node, so the package
 * still bundles for browsers and workers; the types below are the few
 * members of `IncomingMessage` and `ServerResponse` it uses.
 */
import {
  concat, declaredTooLarge, errorAnswer, notPost, parseBody, parseText, readTooLarge, reviewJson, type Answer, type Review,
} from './http.js';
import type { AdmissionReviewResponse } from './types.js';

/** What the listener reads of a Node `IncomingMessage` (an Express or Connect request is one). */
export interface NodeRequest {
  readonly method?: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * A body a framework already read (`express.json()`, `express.raw()`,
   * `express.text()`): used when present and the stream has ended. A parsed
   * body skips `maxBodyBytes` (the framework's own limit applied).
   */
  readonly body?: unknown;
  readonly readableEnded?: boolean;
  // One overload per event read, each a subset of Node's typed events: a single `(event: string,
  // listener: (...args: never[]) => void)` signature is not satisfied by @types/node 25+'s
  // event-map overloads of IncomingMessage.on, and `any` would not be checked at all.
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'error', listener: () => void): unknown;
}

/** What the listener writes to a Node `ServerResponse`. */
export interface NodeResponse {
  writeHead(status: number, headers: Record<string, string | number>): unknown;
  end(body: string): unknown;
}

/** A Node request listener: `http.createServer(listener)`, `app.post(path, listener)`. Never throws. */
export type NodeListener = (req: NodeRequest, res: NodeResponse) => void;

/**
 * UTF-8 length of `text` without encoding it: the answer is written as a string, so that Node
 * sends headers and body in one write (a byte array body is a second chunk of the socket write).
 */
function byteLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      n += 1;
      continue;
    }
    // 3 bytes for one UTF-16 unit; 4 for a surrogate pair (two units); a lone surrogate is sent as U+FFFD (3).
    n += 2;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

function write(res: NodeResponse, answer: Answer, close = false): void {
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': byteLength(answer.body), ...answer.headers };
  // The rest of an oversized body is not read: close the connection instead of draining it.
  if (close) headers['connection'] = 'close';
  res.writeHead(answer.status, headers);
  res.end(answer.body);
}

/** Builds the listener around a `review` function. */
export function createListener(review: Review, maxBodyBytes: number): NodeListener {
  const answer = (res: NodeResponse, body: unknown): void => {
    let result: AdmissionReviewResponse | Promise<AdmissionReviewResponse>;
    try {
      result = review(body);
    } catch (error) {
      write(res, errorAnswer(error));
      return;
    }
    if (result instanceof Promise) {
      result.then((r) => write(res, { status: 200, body: reviewJson(r) }), (error: unknown) => write(res, errorAnswer(error)));
    } else {
      write(res, { status: 200, body: reviewJson(result) });
    }
  };

  const fromBytes = (res: NodeResponse, bytes: Uint8Array): void => {
    let body: unknown;
    try {
      body = parseBody(bytes);
    } catch (error) {
      write(res, errorAnswer(error));
      return;
    }
    answer(res, body);
  };

  /** A body a framework read before us. */
  const fromFramework = (res: NodeResponse, body: unknown): void => {
    if (body instanceof Uint8Array) {
      if (body.byteLength > maxBodyBytes) write(res, errorAnswer(readTooLarge(maxBodyBytes)));
      else fromBytes(res, body);
      return;
    }
    if (typeof body !== 'string') {
      answer(res, body);
      return;
    }
    // UTF-16 length ≤ UTF-8 length ≤ 3 × UTF-16 length: encode only when it could matter.
    if (body.length * 3 > maxBodyBytes && byteLength(body) > maxBodyBytes) {
      write(res, errorAnswer(readTooLarge(maxBodyBytes)));
      return;
    }
    let parsed: unknown;
    try {
      parsed = parseText(body);
    } catch (error) {
      write(res, errorAnswer(error));
      return;
    }
    answer(res, parsed);
  };

  return (req, res) => {
    if (req.method !== 'POST') {
      write(res, errorAnswer(notPost(req.method)));
      return;
    }
    if (req.body !== undefined && req.readableEnded !== false) {
      fromFramework(res, req.body);
      return;
    }
    const length = req.headers['content-length'];
    const declared = declaredTooLarge(typeof length === 'string' ? length : undefined, maxBodyBytes);
    if (declared) {
      write(res, errorAnswer(declared), true);
      return;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Uint8Array) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > maxBodyBytes) {
        done = true;
        chunks.length = 0;
        write(res, errorAnswer(readTooLarge(maxBodyBytes)), true);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      fromBytes(res, concat(chunks, size));
    });
    // The client went away mid-body: there is no one to answer.
    req.on('error', () => {
      done = true;
    });
  };
}
