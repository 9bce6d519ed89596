/**
 * Test helpers: HTTPS requests that trust only the server's certificate,
 * logs captured as parsed JSON lines, and Kubernetes objects.
 */
import { request } from 'node:https';
import type { KubernetesObject } from '@verdict/kubernetes';
import { createLogger, type Logger } from '../src/log.js';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS request to `url + path`, trusting only `ca`. */
export function send(url: string, path: string, options: { method?: string; body?: string; ca: string; headers?: Record<string, string> }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: options.method ?? 'POST', ca: options.ca, agent: false, headers: { 'content-type': 'application/json', ...options.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A logger whose JSON lines land in `lines`, parsed. */
export function captureLogs(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } });
  return { logger, lines };
}

export const namespace = (name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): KubernetesObject =>
  ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels, annotations } });

export const pod = (ns: string, memory: string, options: { image?: string; labels?: Record<string, string> } = {}): KubernetesObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'app-0', namespace: ns, labels: options.labels ?? {} },
  spec: { containers: [{ name: 'app', image: options.image ?? 'internal.artifactory.example.com/app:1', resources: { limits: { memory } } }] },
});

/** The projects of Gatekeeper's defaults-and-overrides request (#3082), as namespaces `ns-<project>`. */
export const PROJECT_NAMESPACES = ['web', 'system', '32g-team', '64g-team', 'special-team1'].map((p) => namespace(`ns-${p}`, { 'field.cattle.io/projectId': p }));
