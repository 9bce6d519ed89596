import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';

describe('MutatingAdmissionPolicy example', () => {
  it('injects the proxy into the mesh pod, with the image of the binding parameter', async () => {
    const [pod] = await run();
    expect(pod!.response.allowed).toBe(true);
    expect(pod!.patch).toEqual([{ op: 'add', path: '/spec/initContainers', value: [{ name: 'mesh-proxy', image: 'mesh/proxy:v1.2.0', restartPolicy: 'Always' }] }]);
  });

  it('merges the team label into the Deployment and its pod template', async () => {
    const deployment = (await run())[1]!;
    expect(deployment.patch).toEqual(expect.arrayContaining([
      { op: 'add', path: '/metadata/labels/team', value: 'checkout' },
      { op: 'add', path: '/spec/template/metadata/labels/team', value: 'checkout' },
    ]));
  });

  it('leaves pods outside mesh namespaces unchanged', async () => {
    const debug = (await run())[2]!;
    expect(debug.response.allowed).toBe(true);
    expect(debug.patch).toEqual([]);
  });
});
