// Compiles src/main.ts into one self-contained executable, dist/byre, with
// bun's --compile (ADR 0002). Run through `npm run build`, after embed.mjs.
declare const Bun: {
  build(options: unknown): Promise<{ success: boolean; logs: unknown[] }>;
};

const result = await Bun.build({
  entrypoints: ['src/main.ts'],
  compile: { outfile: 'dist/byre' },
  minify: { syntax: true, whitespace: true },
  bytecode: true,
  // Lazily imported modules (each command, ink) become chunks inside the
  // executable that load only when imported: --version starts in ~10 ms, not 16.
  splitting: true,
  format: 'esm',
  sourcemap: 'none',
  define: { 'process.env.DEV': '"false"' },
  plugins: [
    {
      // ink imports react-devtools-core only under DEV=true; it is not a
      // dependency, so resolve it to an empty module.
      name: 'stub-react-devtools',
      setup(build: {
        onResolve(o: { filter: RegExp }, f: () => { path: string; namespace: string }): void;
        onLoad(
          o: { filter: RegExp; namespace: string },
          f: () => { contents: string; loader: string },
        ): void;
      }) {
        build.onResolve({ filter: /^react-devtools-core$/ }, () => ({
          path: 'stub',
          namespace: 'stub',
        }));
        build.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
          contents: 'export default {};',
          loader: 'js',
        }));
      },
    },
  ],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
