/** The PolicyTemplate behind `SpinnakerPermissions` constraints: parameters hold a permissions map, and there are no rules. */
import type { PolicyDocument } from '@verdict/core';

/** The constraint kind the policy source reads by default. */
export const PERMISSIONS_KIND = 'SpinnakerPermissions';

const AUTH_NAMES = ['READ', 'WRITE', 'EXECUTE', 'CREATE', 'read', 'write', 'execute', 'create'];

/**
 * The `PolicyTemplate` defining `PERMISSIONS_KIND`. `parameters.permissions`
 * maps an authorization (any case: `READ`, `read`) to role names; role lists from
 * `spec.parameters` and matching `parameterSelection` entries merge as a union.
 */
export const PERMISSIONS_TEMPLATE: PolicyDocument = Object.freeze({
  apiVersion: 'verdict.dev/v1',
  kind: 'PolicyTemplate',
  metadata: { name: 'spinnaker-permissions' },
  spec: {
    kind: PERMISSIONS_KIND,
    parametersSchema: {
      type: 'object',
      properties: {
        permissions: {
          type: 'object',
          propertyNames: { enum: AUTH_NAMES },
          additionalProperties: { type: 'array', items: { type: 'string' } },
        },
      },
      additionalProperties: false,
    },
  },
}) as unknown as PolicyDocument;
