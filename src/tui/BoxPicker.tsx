// The box picker screen: a list of escaped rows driven by the pure model in
// model/picker.ts. It only renders and forwards keys; it never decides what a
// key means and never touches process streams itself.

import { Box, Text, useApp, useInput } from 'ink';
import { useEffect, useState } from 'react';

import {
  initialPickerState,
  pickerKeyFor,
  pickerView,
  reducePicker,
  type PickerCandidate,
  type PickerOutcome,
  type PickerState,
} from './model/picker.js';

interface BoxPickerProps {
  candidates: readonly PickerCandidate[];
  onSettled: (outcome: PickerOutcome) => void;
}

export function BoxPicker({ candidates, onSettled }: BoxPickerProps) {
  const { exit } = useApp();
  const [state, setState] = useState<PickerState>(() => initialPickerState(candidates.length));

  useInput((input, key) => {
    setState((s) => reducePicker(s, pickerKeyFor(input, key)));
  });

  useEffect(() => {
    if (state.outcome.kind === 'open') return;
    onSettled(state.outcome);
    exit();
  }, [state.outcome, onSettled, exit]);

  const view = pickerView(candidates, state);
  return (
    <Box flexDirection="column">
      <Text bold>{view.title}</Text>
      {view.rows.map((row, i) => (
        <Text key={i} {...(row.selected ? { color: 'cyan' } : {})} bold={row.selected}>
          {row.text}
        </Text>
      ))}
      <Text dimColor>{view.hint}</Text>
    </Box>
  );
}
