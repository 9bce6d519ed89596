/** Policies and inputs shared by the consumer files. */
export const LIMIT = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: limit}
spec:
  validate: [{name: r, rule: {"<=": [{quantity: {var: object.memory}}, {quantity: "1Gi"}]}, message: too big}]
`;

export const POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [] } };

export const SUITE = 'apiVersion: verdict.dev/v1\nkind: Suite\n';
