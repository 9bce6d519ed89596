/**
 * Functions whose cost in the API server grows with their arguments (Kubernetes' library/cost.go `CallCost`,
 * cel-go's `costCall` and its extensions' cost trackers): their implementations charge that cost themselves
 * (runtime.ts `spend`), and units.ts charges their calls nothing more. Every other function costs the API
 * server its nominal unit per call, which units.ts charges.
 */
export const COSTED_FUNCTIONS: ReadonlySet<string> = new Set([
  // k8s.io/apiserver/pkg/cel/library/cost.go
  'check', 'isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf', 'url', 'lowerAscii', 'upperAscii', 'substring', 'trim',
  'replace', 'split', 'join', 'find', 'findAll', 'cidr', 'isIP', 'isCIDR', 'ip', 'ip.isCanonical', 'containsIP', 'containsCIDR',
  'quantity', 'isQuantity',
  // cel-go interpreter/runtimecost.go (cel-js built-ins verdict implements: cost.ts, lib/)
  'matches', 'strings.quote', 'format',
  // cel-go ext/sets.go
  'sets.contains', 'sets.intersects', 'sets.equivalent',
]);
