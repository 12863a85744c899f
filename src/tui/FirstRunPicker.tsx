// The first-run picker screen: renders the pure model's lines and forwards
// keys to its reducer; it decides nothing and touches no stream itself.

import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useEffect, useState } from 'react';

import {
  firstRunKeyFor,
  firstRunView,
  initialFirstRun,
  reduceFirstRun,
  type FirstRunSetup,
  type FirstRunState,
} from './model/first-run.js';

interface FirstRunPickerProps {
  setup: FirstRunSetup;
  color: boolean;
  onSettled: (state: FirstRunState) => void;
}

const TONES = {
  title: { bold: true },
  row: {},
  selected: { color: 'cyan', bold: true },
  dim: { dimColor: true },
  hint: { dimColor: true },
} as const;

export function FirstRunPicker({ setup, color, onSettled }: FirstRunPickerProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [state, setState] = useState(() => initialFirstRun(setup));
  useInput((input, key) => setState((s) => reduceFirstRun(setup, s, firstRunKeyFor(input, key))));
  useEffect(() => {
    if (state.outcome === 'open') return;
    onSettled(state);
    exit();
  }, [state, onSettled, exit]);
  const lines = firstRunView(setup, state, stdout.columns || 80);
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => (
        <Text key={i} wrap="truncate-end" {...(color ? TONES[line.tone] : {})}>
          {line.text === '' ? ' ' : line.text}
        </Text>
      ))}
    </Box>
  );
}
