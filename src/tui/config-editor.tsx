// runConfigEditor: the IO around the config editor screen. It owns the
// terminal (the alternate screen, unless TERM=dumb), runs the effects the
// model asks for through the callers' functions (save, re-read the layers
// below), and suspends the screen for $EDITOR, re-rendering with the result.
// Callers import this module dynamically so ink loads only for `byre config`.

import { ConfigEditor, type EditorEffects } from './ConfigEditor.js';
import { derive } from './model/config-editor/derive.js';
import { editorItems } from './model/config-editor/items.js';
import {
  initialEditorState,
  reduceEditor,
  type EditorEvent,
  type EditorState,
} from './model/config-editor/state.js';
import type { Below, EditorWorld } from './model/config-editor/types.js';
import { showScreen } from './screen.js';

export interface ConfigEditorRun {
  world: EditorWorld;
  /** The file as read when the editor opened ('' for a file not written yet). */
  text: string;
  below: Below;
  color: boolean;
  /** Use the terminal's alternate screen (not on TERM=dumb). */
  altScreen: boolean;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  effects: EditorEffects;
  /** $EDITOR on `text`; null text when nothing was taken (and why). */
  external(
    text: string,
    suffix: '.toml' | '.md',
  ): { text: string } | { text: null; reason: string };
}

const ENTER_ALT = '\u001b[?1049h\u001b[H';
const LEAVE_ALT = '\u001b[?1049l';

async function showOnce(run: ConfigEditorRun, state: EditorState): Promise<EditorState> {
  let last = state;
  await showScreen(
    <ConfigEditor
      world={run.world}
      initial={state}
      color={run.color}
      effects={run.effects}
      onLeave={(s) => {
        last = s;
      }}
    />,
    run.input,
    run.output,
  );
  return last;
}

/** The event that hands $EDITOR's result back to the model. */
function externalResult(run: ConfigEditorRun, state: EditorState): EditorEvent {
  const effect = state.effect;
  if (effect?.kind !== 'external') return { kind: 'external-done', text: null };
  try {
    const edited = run.external(effect.text, effect.suffix);
    return edited.text === null
      ? { kind: 'external-done', text: null, error: edited.reason }
      : { kind: 'external-done', text: edited.text };
  } catch (error) {
    return {
      kind: 'external-done',
      text: null,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** Runs the editor until the user quits; resolves to the final state. */
export async function runConfigEditor(run: ConfigEditorRun): Promise<EditorState> {
  let state = initialEditorState(run.text, run.below);
  for (;;) {
    if (run.altScreen) run.output.write(ENTER_ALT);
    try {
      state = await showOnce(run, state);
    } finally {
      if (run.altScreen) run.output.write(LEAVE_ALT);
    }
    if (state.effect?.kind !== 'external') return state;
    const event = externalResult(run, state);
    const derived = derive(state.text, state.below, run.world);
    const items = editorItems(run.world, derived);
    state = reduceEditor(state, event, { world: run.world, derived, items, page: 1 });
    if (state.effect?.kind === 'reload-below') {
      state = reduceEditor(state, await run.effects.reloadBelow(state), {
        world: run.world,
        derived,
        items,
        page: 1,
      });
    }
  }
}
