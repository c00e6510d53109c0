// The code editor: CodeMirror 6 with its basic setup, JavaScript or Python highlighting swapped
// through a compartment when the mode changes; Ctrl+Enter (Cmd+Enter) runs.

import { EditorView, basicSetup } from 'codemirror';
import { Compartment, Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { javascript } from '@codemirror/lang-javascript';
import { python } from '@codemirror/lang-python';

const language = { js: () => javascript(), py: () => python() };

export function createEditor(parent, onRun) {
  const mode = new Compartment();
  // Above basicSetup's own Mod-Enter (insertBlankLine).
  const runKey = Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (onRun(), true) }]));
  const view = new EditorView({ parent, extensions: [basicSetup, mode.of(language.js()), runKey] });
  return {
    get text() {
      return view.state.doc.toString();
    },
    set(text, lang) {
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        effects: mode.reconfigure(language[lang]()),
      });
    },
  };
}
