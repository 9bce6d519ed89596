/** The playground's CodeMirror 6 editors: YAML with highlighting, problems shown inline at their line, optional completion. */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, type CompletionSource } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, defaultHighlightStyle, foldGutter, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState, type Extension } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';

/** A problem to show in an editor: 1-based line and column (column optional). */
export interface EditorProblem {
  message: string;
  line?: number;
  column?: number;
}

export interface Editor {
  readonly view: EditorView;
  text(): string;
  setText(text: string): void;
  /** Replaces the problems shown in the editor (an empty list clears them). */
  showProblems(problems: readonly EditorProblem[]): void;
  /** Moves the cursor to a 1-based line and scrolls it into view. */
  revealLine(line: number): void;
}

export function createEditor(parent: HTMLElement, options: { label: string; onChange: () => void; completion?: CompletionSource; extensions?: Extension[] }): Editor {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: '',
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        foldGutter(),
        lintGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        yaml(),
        EditorState.tabSize.of(2),
        ...(options.completion ? [autocompletion({ override: [options.completion], icons: false })] : []),
        ...(options.extensions ?? []),
        keymap.of([indentWithTab, ...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, ...completionKeymap]),
        EditorView.contentAttributes.of({ 'aria-label': options.label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange();
        }),
      ],
    }),
  });
  const lineRange = (problem: EditorProblem) => {
    const doc = view.state.doc;
    const line = doc.line(Math.min(Math.max(problem.line ?? 1, 1), doc.lines));
    const from = Math.min(line.from + Math.max((problem.column ?? 1) - 1, 0), line.to);
    return { from, to: Math.max(line.to, from) };
  };
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    showProblems(problems) {
      const diagnostics: Diagnostic[] = problems.map((problem) => ({ ...lineRange(problem), severity: 'error', message: problem.message, source: 'verdict' }));
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
    revealLine(line) {
      const { from } = lineRange({ message: '', line });
      view.dispatch({ selection: { anchor: from }, effects: EditorView.scrollIntoView(from, { y: 'center' }) });
      view.focus();
    },
  };
}
