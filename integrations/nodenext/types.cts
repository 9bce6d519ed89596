// Type-checks the CommonJS declaration files (index.d.cts) under NodeNext.
import core = require('@verdict/core');

const set: core.PolicySet = core.compilePolicies(core.parsePolicyDocuments('kind: Policy\napiVersion: verdict.dev/v1\nmetadata: {name: x}\nspec: {}\n'));
const decision: core.Decision = set.evaluate({});
export const allowed: boolean = decision.allowed;
