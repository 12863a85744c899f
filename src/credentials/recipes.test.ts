// The agents' injection recipes match docs/CREDENTIALS.md's table line for
// line, so what the picker offers is what the docs tell a user to run.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { injectRecipeFor, recipeCommand, recipeText } from './recipes.js';

const DOC = readFileSync(path.resolve(import.meta.dirname, '../../docs/CREDENTIALS.md'), 'utf8');

describe('injection recipes', () => {
  it.each(['byre/claude', 'byre/codex', 'byre/gemini'])(
    '%s: its `credential add` line is the documented recipe',
    (agent) => {
      const recipe = injectRecipeFor(agent);
      expect(recipe).not.toBeNull();
      if (recipe !== null) expect(DOC).toContain(`\`${recipeCommand(recipe)}\``);
    },
  );

  it('has none for an agent without an API key recipe, or no agent', () => {
    expect(injectRecipeFor('byre/opencode')).toBeNull();
    expect(injectRecipeFor(null)).toBeNull();
  });

  it('says the recipe in words', () => {
    const claude = injectRecipeFor('byre/claude');
    const codex = injectRecipeFor('byre/codex');
    expect(claude && recipeText(claude)).toBe(
      'ANTHROPIC_API_KEY as x-api-key to api.anthropic.com',
    );
    expect(codex && recipeText(codex)).toBe('OPENAI_API_KEY as a bearer token to api.openai.com');
  });
});
