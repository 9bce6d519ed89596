import { describe, expect, it } from 'vitest';
import { cursorContext } from '../playground/src/yaml-path.js';

/** The context at the `|` in `text`. */
function at(text: string) {
  const offset = text.indexOf('|');
  return cursorContext(text.replace('|', ''), offset);
}

describe('the cursor context in policy YAML', () => {
  it('gives the key path of a key being typed, with the keys already there', () => {
    const context = at('kind: Policy\nspec:\n  validate: []\n  para|\n  order: 1\n');
    expect(context).toMatchObject({ path: ['spec'], position: 'key', prefix: 'para' });
    expect(context?.siblings.sort()).toEqual(['order', 'validate']);
  });

  it('follows list items, on the line opening the item and on the lines after it', () => {
    expect(at('spec:\n  validate:\n    - na|\n')).toMatchObject({ path: ['spec', 'validate', '*'], position: 'key', siblings: [] });
    expect(at('spec:\n  validate:\n    - name: a\n      ru|\n')).toMatchObject({ path: ['spec', 'validate', '*'], siblings: ['name'] });
  });

  it('gives the key whose value is being typed', () => {
    expect(at('spec:\n  mutate:\n    - patch:\n        - op: rep|\n')).toMatchObject({ path: ['spec', 'mutate', '*', 'patch', '*', 'op'], position: 'value', prefix: 'rep' });
  });

  it('stays inside the YAML document holding the cursor', () => {
    const context = at('kind: PolicyTemplate\nspec: {}\n---\nkind: Mine\nsp|\n');
    expect(context).toMatchObject({ path: [], documentText: 'kind: Mine\nsp\n' });
  });

  it('offers nothing inside a comment or a flow mapping', () => {
    expect(at('# a comm|ent\n')).toBeUndefined();
    expect(at('metadata: {na|}\n')).toBeUndefined();
  });
});
