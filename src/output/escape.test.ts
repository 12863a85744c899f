import { describe, expect, it } from 'vitest';
import { escapeTerminal, escapeTerminalBlock } from './escape.js';

describe('escapeTerminal', () => {
  it.each([
    ['plain', 'plain'],
    ['a\nb', 'a\\nb'],
    ['\u001b[31mred\u001b[0m', '\\x1b[31mred\\x1b[0m'],
    ['bell\u0007', 'bell\\x07'],
    ['del\u007f', 'del\\x7f'],
    ['c1\u009b2J', 'c1\\x9b2J'],
    ['rtl\u202eevil', 'rtl\\u202eevil'],
    ['tab\there', 'tab\\there'],
    ['日本語 🛑', '日本語 🛑'],
  ])('%j -> %j', (input, want) => {
    expect(escapeTerminal(input)).toBe(want);
  });
});

describe('escapeTerminalBlock', () => {
  it('keeps newlines and tabs but neutralises escapes', () => {
    expect(escapeTerminalBlock('a\tb\n\u001b]0;title\u0007c')).toBe('a\tb\n\\x1b]0;title\\x07c');
  });
});
