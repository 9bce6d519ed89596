/**
 * The inputs: 8 realistic Pods rotated per call (3 containers each, limits
 * 128/256/512 Mi, images from three allowed registries), two bad Pods for the
 * sanity checks, and the pre-normalised form the peers get (memory in bytes,
 * registry and tag split out of the image), as in peer-bench.md.
 */
export interface Container {
  name: string;
  image: string;
  resources: { limits: { memory?: string; cpu?: string }; requests?: { memory?: string; cpu?: string } };
  [key: string]: unknown;
}

export interface Pod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations?: Record<string, string>; uid?: string };
  spec: { containers: Container[]; [key: string]: unknown };
}

export const REGISTRIES = ['gcr.io', 'quay.io', 'registry.corp.example'];
export const GI = 2 ** 30;
export const MEMORY = ['128Mi', '256Mi', '512Mi'];
export const ROTATE = 8;

export interface PodOptions {
  labels?: Record<string, string>;
  namespace?: string;
  memory?: readonly string[];
  images?: readonly string[];
}

/** Pod number `i` (a ~1.3 KB object). */
export function makePod(i: number, options: PodOptions = {}): Pod {
  const app = `app-${i}`;
  const memory = options.memory ?? MEMORY;
  const images = options.images ?? REGISTRIES.map((r, c) => `${r}/platform/${app}-${['web', 'sidecar', 'metrics'][c]}:1.${i}.${c}`);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${app}-7d9f8b6c5-x${i}k2p`,
      namespace: options.namespace ?? `team-${i % 4}`,
      uid: `0f1e2d3c-4b5a-6978-8a9b-${String(i).padStart(12, '0')}`,
      labels: options.labels ?? { app, 'pod-template-hash': '7d9f8b6c5', team: `team-${i % 4}`, tier: 'web', env: 'prod', version: `1.${i}` },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
    },
    spec: {
      serviceAccountName: 'default',
      restartPolicy: 'Always',
      securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000 },
      containers: ['web', 'sidecar', 'metrics'].map((role, c) => ({
        name: `${app}-${role}`,
        image: images[c % images.length]!,
        ports: [{ containerPort: 8080 + c, protocol: 'TCP' }],
        env: [{ name: 'LOG_LEVEL', value: 'info' }],
        resources: { limits: { memory: memory[c % memory.length]!, cpu: '500m' }, requests: { memory: '64Mi', cpu: '100m' } },
        securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
      })),
    },
  };
}

/** The 8 good Pods (every engine must allow them). */
export function goodPods(options: (i: number) => PodOptions = () => ({})): Pod[] {
  return Array.from({ length: ROTATE }, (_, i) => makePod(i, options(i)));
}

/** Bad Pods (every engine must deny them): one container at 20 Gi; one image from docker.io. */
export function badPods(options: (i: number) => PodOptions = () => ({})): Pod[] {
  return [
    makePod(100, { ...options(100), memory: ['128Mi', '20Gi', '512Mi'] }),
    makePod(101, { ...options(101), images: ['gcr.io/platform/web:1', 'nginx:1.25', 'quay.io/platform/metrics:2'] }),
  ];
}

/** A hand-written Kubernetes quantity parser (no cache: the baseline parses on every call). */
export function parseQuantity(text: string | undefined): number {
  if (text === undefined) return NaN;
  const m = /^([0-9]+(?:\.[0-9]*)?)(Ki|Mi|Gi|Ti|m|k|M|G)?$/.exec(text);
  if (!m) return NaN;
  const n = Number(m[1]);
  switch (m[2]) {
    case 'Ki': return n * 1024;
    case 'Mi': return n * 1024 ** 2;
    case 'Gi': return n * 1024 ** 3;
    case 'Ti': return n * 1024 ** 4;
    case 'm': return n / 1000;
    case 'k': return n * 1e3;
    case 'M': return n * 1e6;
    case 'G': return n * 1e9;
    default: return n;
  }
}

/** Registry and tag of an image reference (Docker grammar: the first component is a registry when it has "." or ":"). */
export function splitImage(image: string): { registry: string; tag: string } {
  const at = image.indexOf('@');
  const ref = at >= 0 ? image.slice(0, at) : image;
  const slash = ref.indexOf('/');
  const first = slash >= 0 ? ref.slice(0, slash) : '';
  const registry = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost') ? first : 'docker.io';
  const colon = ref.lastIndexOf(':');
  const tag = colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : 'latest';
  return { registry, tag };
}

/** The peers' input: a copy of the Pod with `memory` in bytes and `registry`/`tag` on each container. */
export function normalisePod(pod: Pod): Pod {
  const copy = JSON.parse(JSON.stringify(pod)) as Pod;
  for (const c of copy.spec.containers) {
    const { registry, tag } = splitImage(c.image);
    c['registry'] = registry;
    c['tag'] = tag;
    (c.resources.limits as Record<string, unknown>)['memory'] = parseQuantity(c.resources.limits.memory);
  }
  return copy;
}

/** Rotates over `items` on every call. */
export function rotate<T>(items: readonly T[]): () => T {
  let i = 0;
  const n = items.length;
  return () => items[i++ % n]!;
}
