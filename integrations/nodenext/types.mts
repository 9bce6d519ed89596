// Type-checks the ESM declaration files (index.d.ts) under NodeNext.
import { compilePolicies, parsePolicyDocuments, type Decision, type PolicySet } from '@verdict/core';

const set: PolicySet = compilePolicies(parsePolicyDocuments('kind: Policy\napiVersion: verdict.dev/v1\nmetadata: {name: x}\nspec: {}\n'));
const decision: Decision = set.evaluate({});
export const allowed: boolean = decision.allowed;
