/** "Did you mean …?" suggestions for misspelt keys and names: the same edit distance CEL's load errors use. */
export { closest, didYouMean } from '@verdict/cel/internal';
