// The README's demo command: `verdict test examples/`, run from the package
// sources (no build step). It runs every *.verdict.yaml suite under examples/:
// the constraints of Gatekeeper's feature request for defaults and overrides
// (https://github.com/open-policy-agent/gatekeeper/issues/3082; core selectors and
// Gatekeeper YAML on the Kubernetes webhook), five gatekeeper-library
// policies with their own samples, the scenarios of GitLab's runner admission
// controller design (https://docs.gitlab.com/ee/architecture/blueprints/runner_admission_controller/),
// and Spinnaker Fiat permissions from policies (https://spinnaker.io/docs/reference/architecture/authz_authn/authorization/).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = ['--import', 'tsx', '--conditions=@verdict/source', 'packages/cli/src/bin.ts', 'test', 'examples/', ...process.argv.slice(2)];
const result = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
if (result.error) {
  console.error(`demo: cannot run the verdict CLI: ${result.error.message}`);
  process.exit(2);
}
process.exit(result.status ?? 1);
