// The config editor screen: renders the pure model's lines and forwards keys
// to its reducer. The effects the reducer asks for (save, re-read the layers
// below, $EDITOR, exit) are handed to the caller; this component never
// touches a file or a process itself.

import { Text, useApp, useInput, useStdout } from 'ink';
import { useEffect, useMemo, useRef, useState } from 'react';

import { derive } from './model/config-editor/derive.js';
import { editorItems } from './model/config-editor/items.js';
import {
  editorKeysFor,
  reduceEditor,
  type EditorContext,
  type EditorEvent,
  type EditorState,
} from './model/config-editor/state.js';
import type { EditorWorld } from './model/config-editor/types.js';
import { editorScreen, type LineTone } from './model/config-editor/view.js';

/** Effects that do not leave the screen, run by the caller; each answers with one event. */
export interface EditorEffects {
  save(state: EditorState): Promise<EditorEvent>;
  reloadBelow(state: EditorState): Promise<EditorEvent>;
  /** Deletes a machine-scoped volume on every engine; answers `volume-cleared`. */
  clearVolume(volume: string): Promise<EditorEvent>;
}

interface ConfigEditorProps {
  world: EditorWorld;
  initial: EditorState;
  color: boolean;
  effects: EditorEffects;
  /** Called once, with the state that ends this screen (exit, or a hand-off to $EDITOR). */
  onLeave: (state: EditorState) => void;
}

const TONES: Readonly<
  Record<LineTone, { color?: string; bold?: boolean; dimColor?: boolean; inverse?: boolean }>
> = {
  title: { bold: true },
  dim: { dimColor: true },
  section: { bold: true, color: 'cyan' },
  heading: { bold: true },
  row: {},
  selected: { inverse: true },
  marker: { color: 'magenta' },
  warn: { color: 'yellow' },
  error: { color: 'red' },
  info: { color: 'green' },
  hint: { dimColor: true },
};

function useTerminalSize(): { width: number; height: number } {
  const { stdout } = useStdout();
  const read = () => ({ width: stdout.columns || 80, height: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  });
  return size;
}

export function ConfigEditor({ world, initial, color, effects, onLeave }: ConfigEditorProps) {
  const { exit } = useApp();
  const { width, height } = useTerminalSize();
  const [state, setState] = useState(initial);
  const derived = useMemo(
    () => derive(state.text, state.below, world),
    [state.text, state.below, world],
  );
  const items = useMemo(() => editorItems(world, derived), [world, derived]);
  const scroll = useRef(0);
  const screen = editorScreen({
    world,
    derived,
    items,
    state,
    width,
    height,
    scroll: scroll.current,
  });
  scroll.current = screen.scroll;

  // The context the reducer needs must match the state it reduces; keys can
  // arrive faster than renders, so it is derived again when they differ.
  const latest = useRef<{ state: EditorState; ctx: EditorContext }>({
    state,
    ctx: { world, derived, items, page: screen.bodyHeight },
  });
  latest.current = {
    state,
    ctx: { world, derived, items, page: Math.max(1, screen.bodyHeight - 1) },
  };
  const contextFor = (s: EditorState): EditorContext => {
    const known = latest.current;
    if (known.state.text === s.text && known.state.below === s.below) return known.ctx;
    const d = derive(s.text, s.below, world);
    return { world, derived: d, items: editorItems(world, d), page: known.ctx.page };
  };
  const dispatch = (event: EditorEvent) => setState((s) => reduceEditor(s, event, contextFor(s)));

  useInput((input, key) => {
    for (const mapped of editorKeysFor(input, key)) dispatch({ kind: 'key', key: mapped });
  });

  const left = useRef(false);
  useEffect(() => {
    const effect = state.effect;
    if (effect === null || left.current) return;
    if (effect.kind === 'exit' || effect.kind === 'external') {
      left.current = true;
      onLeave(state);
      exit();
      return;
    }
    const run =
      effect.kind === 'clear-volume'
        ? effects.clearVolume(effect.volume)
        : effect.kind === 'save'
          ? effects.save(state)
          : effects.reloadBelow(state);
    void run.then(dispatch);
  }, [state.effect]);

  // One text node for the frame (the lines already fit the width): a node per
  // line would cost a layout pass each, on every keypress.
  return (
    <Text>
      {screen.lines.map((line, i) => (
        <Text key={i} {...(color ? TONES[line.tone] : {})}>
          {`${line.text}${i === screen.lines.length - 1 ? '' : '\n'}`}
        </Text>
      ))}
    </Text>
  );
}
