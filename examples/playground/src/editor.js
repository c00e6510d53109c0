// The code editor: CodeMirror 6 with its basic setup, JavaScript or Python highlighting swapped
// through a compartment when the mode changes.

import { EditorView, basicSetup } from 'codemirror';
import { Compartment } from '@codemirror/state';
import { javascript } from '@codemirror/lang-javascript';
import { python } from '@codemirror/lang-python';

const language = { js: () => javascript(), py: () => python() };

export function createEditor(parent, onRun) {
  const mode = new Compartment();
  const runKey = EditorView.domEventHandlers({
    keydown(event) {
      if ((event.ctrlKey || event.metaKey) && event.key === 'Enter') {
        event.preventDefault();
        onRun();
        return true;
      }
      return false;
    },
  });
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
