// The bundled agents' credentials as injection recipes (adr/0070): which
// variable each agent reads, the host its API answers on, and how the edge
// presents the value there. docs/CREDENTIALS.md lists the same recipes as
// `byre credential add` lines; the first-run picker offers them. Pure.

/** How one agent's API key is injected at the edge. */
export interface InjectRecipe {
  /** The variable the agent reads (it holds a sentinel in the box). */
  key: string;
  /** The host its API answers on (port 443). */
  host: string;
  /** The header the edge sets; absent: `Authorization: Bearer`. */
  header?: string;
}

const RECIPES: Readonly<Record<string, InjectRecipe>> = {
  'byre/claude': { key: 'ANTHROPIC_API_KEY', host: 'api.anthropic.com', header: 'x-api-key' },
  'byre/codex': { key: 'OPENAI_API_KEY', host: 'api.openai.com' },
  'byre/gemini': {
    key: 'GEMINI_API_KEY',
    host: 'generativelanguage.googleapis.com',
    header: 'x-goog-api-key',
  },
};

/** The recipe of a bundled agent (by its catalog id), or null. */
export function injectRecipeFor(agent: string | null): InjectRecipe | null {
  if (agent === null) return null;
  return RECIPES[agent] ?? null;
}

/** The recipe in words: `ANTHROPIC_API_KEY as x-api-key to api.anthropic.com`. */
export function recipeText(recipe: InjectRecipe): string {
  const how = recipe.header === undefined ? 'a bearer token' : recipe.header;
  return `${recipe.key} as ${how} to ${recipe.host}`;
}

/** The `byre credential add` line that writes it. */
export function recipeCommand(recipe: InjectRecipe): string {
  const how = recipe.header === undefined ? '--bearer' : `--header ${recipe.header}`;
  return `byre credential add ${recipe.key} --inject ${recipe.host} ${how}`;
}
