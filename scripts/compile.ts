// The one bun compile configuration, shared by `npm run build` (dist/byre for
// this machine) and `npm run release` (every platform): a release binary is
// built exactly as the one the tests drive, only for another target (ADR 0001).
declare const Bun: {
  build(options: unknown): Promise<{ success: boolean; logs: unknown[] }>;
};

export interface CompileRequest {
  outfile: string;
  /** A bun cross-compile target (`bun-darwin-arm64`); omitted: this machine. */
  target?: string;
  /** The bun runtime to embed for `target`, fetched and verified by the caller. */
  executablePath?: string;
}

export async function compileByre(request: CompileRequest): Promise<void> {
  const result = await Bun.build({
    entrypoints: ['src/main.ts'],
    compile: {
      outfile: request.outfile,
      ...(request.target === undefined ? {} : { target: request.target }),
      ...(request.executablePath === undefined ? {} : { executablePath: request.executablePath }),
    },
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
    throw new Error(`bun could not compile ${request.outfile}`);
  }
}
