/**
 * The playground page: three editors (policies, input, adapter settings), an
 * example picker fed by the repository's suites, and the decision with its
 * trace, recomputed on every edit. The state lives in the URL fragment.
 */
import schema from '@verdict/core/schema/policy.schema.json';
import { ciMatchDialect } from '@verdict/ci';
import { kubernetesDialect } from '@verdict/kubernetes';
import { spinnakerMatchDialect } from '@verdict/spinnaker';
import examples from 'virtual:verdict-examples';
import { policyCompletion, policyHover } from './completion.js';
import { createEditor, type Editor } from './editors.js';
import type { Example } from './examples.js';
import { renderResult } from './render.js';
import { ADAPTERS, run, type AdapterId, type TextProblem } from './run.js';
import { decodeState, encodeState, type PlaygroundState } from './share.js';
import './style.css';

const MATCH_KEYS: Record<AdapterId, readonly string[]> = {
  core: [],
  kubernetes: kubernetesDialect.keys,
  ci: ciMatchDialect.keys,
  fiat: spinnakerMatchDialect.keys,
};

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

const exampleSelect = byId<HTMLSelectElement>('example');
const caseSelect = byId<HTMLSelectElement>('case');
const adapterSelect = byId<HTMLSelectElement>('adapter');
const status = byId('status');
const notice = byId('notice');
const resultPane = byId('result');

let adapter: AdapterId = 'kubernetes';
let currentExample: Example | undefined;
let loading = false;
let timer: ReturnType<typeof setTimeout> | undefined;
let generation = 0;

const schedule = () => {
  if (loading) return;
  clearTimeout(timer);
  timer = setTimeout(() => void evaluate(), 150);
};

const schemaSetup = { schema: schema as Record<string, unknown>, matchKeys: () => MATCH_KEYS[adapter] };
const editors: Record<TextProblem['editor'], Editor> = {
  policies: createEditor(byId('policies'), {
    label: 'Policies (YAML)',
    onChange: schedule,
    completion: policyCompletion(schemaSetup),
    extensions: [policyHover(schemaSetup)],
  }),
  input: createEditor(byId('input'), { label: 'Input (YAML or JSON)', onChange: schedule }),
  settings: createEditor(byId('settings'), { label: 'Adapter settings (YAML)', onChange: schedule }),
};

function option(value: string, label: string): HTMLOptionElement {
  const el = document.createElement('option');
  el.value = value;
  el.textContent = label;
  return el;
}

function fillExamples(): void {
  const groups = new Map<string, HTMLOptGroupElement>();
  exampleSelect.replaceChildren(option('', '(your own)'));
  for (const example of examples) {
    let group = groups.get(example.group);
    if (!group) {
      group = document.createElement('optgroup');
      group.label = example.group;
      groups.set(example.group, group);
      exampleSelect.append(group);
    }
    group.append(option(example.id, example.title));
  }
  adapterSelect.replaceChildren(...(Object.keys(ADAPTERS) as AdapterId[]).map((id) => option(id, ADAPTERS[id].label)));
}

function fillCases(example: Example | undefined, selected = example?.defaultCase ?? 0): void {
  caseSelect.replaceChildren(...(example?.cases ?? []).map((c, i) => option(String(i), `${c.name}${c.expected ? ` (${c.expected})` : ''}`)));
  caseSelect.disabled = !example;
  if (example) caseSelect.value = String(selected);
}

function setAdapter(id: AdapterId): void {
  adapter = id;
  adapterSelect.value = id;
  byId('input-hint').textContent = ADAPTERS[id].input;
  byId('settings-hint').textContent = ADAPTERS[id].settings;
}

function setTexts(texts: { policies?: string; input?: string; settings?: string }): void {
  loading = true;
  try {
    for (const key of ['policies', 'input', 'settings'] as const) {
      const text = texts[key];
      if (text !== undefined) editors[key].setText(text);
    }
  } finally {
    loading = false;
  }
  schedule();
}

function loadCase(example: Example, index: number): void {
  const c = example.cases[index] ?? example.cases[0];
  if (c) setTexts({ input: c.input, settings: c.settings });
}

function loadExample(example: Example, caseIndex = example.defaultCase): void {
  currentExample = example;
  exampleSelect.value = example.id;
  fillCases(example, caseIndex);
  setAdapter(example.adapter);
  setTexts({ policies: example.policies });
  loadCase(example, caseIndex);
}

function loadState(state: PlaygroundState): void {
  currentExample = examples.find((e) => e.id === state.example);
  exampleSelect.value = currentExample?.id ?? '';
  fillCases(currentExample);
  setAdapter(state.adapter);
  setTexts({ policies: state.policies, input: state.input, settings: state.settings });
}

function currentState(): PlaygroundState {
  return { adapter, policies: editors.policies.text(), input: editors.input.text(), settings: editors.settings.text(), ...(currentExample ? { example: currentExample.id } : {}) };
}

function showNotice(message: string | undefined): void {
  notice.hidden = message === undefined;
  notice.textContent = message ?? '';
}

async function evaluate(): Promise<void> {
  const mine = ++generation;
  const result = await run(adapter, { policies: editors.policies.text(), input: editors.input.text(), settings: editors.settings.text() });
  if (mine !== generation) return;
  for (const key of Object.keys(editors) as TextProblem['editor'][]) editors[key].showProblems(result.problems.filter((p) => p.editor === key));
  const expected = currentExample && caseSelect.value !== '' ? currentExample.cases[Number(caseSelect.value)]?.expected : undefined;
  renderResult(resultPane, result, (editor, line) => editors[editor].revealLine(line), sameAsExample() ? expected : undefined);
  history.replaceState(null, '', `#${encodeState(currentState())}`);
  document.body.dataset['runs'] = String(Number(document.body.dataset['runs'] ?? '0') + 1);
}

/** True while the texts are still the selected example case's (so its expectation applies). */
function sameAsExample(): boolean {
  const c = currentExample?.cases[Number(caseSelect.value)];
  return !!currentExample && !!c && editors.policies.text() === currentExample.policies && editors.input.text() === c.input && editors.settings.text() === c.settings && adapter === currentExample.adapter;
}

exampleSelect.addEventListener('change', () => {
  const example = examples.find((e) => e.id === exampleSelect.value);
  if (example) loadExample(example);
  else {
    currentExample = undefined;
    fillCases(undefined);
  }
});
caseSelect.addEventListener('change', () => {
  if (currentExample) loadCase(currentExample, Number(caseSelect.value));
});
adapterSelect.addEventListener('change', () => {
  setAdapter(adapterSelect.value as AdapterId);
  schedule();
});
byId('share').addEventListener('click', () => {
  const url = `${location.href.split('#')[0]}#${encodeState(currentState())}`;
  history.replaceState(null, '', url);
  const copied = 'Link copied: it holds the whole case';
  const manual = 'Copy the address bar: it holds the whole case';
  if (!navigator.clipboard) status.textContent = manual;
  else navigator.clipboard.writeText(url).then(() => (status.textContent = copied), () => (status.textContent = manual));
});

fillExamples();
const shared = decodeState(location.hash);
if (shared && !('error' in shared)) loadState(shared);
else {
  if (shared) showNotice(`The link could not be opened: ${shared.error}. Showing the default example instead.`);
  const first = examples[0];
  if (first) loadExample(first);
}
