// The platforms a release builds, and how each names itself to bun and to the
// npm registry. Pure data: the release script and its tests read it.

export type Os = 'linux' | 'darwin';
export type Arch = 'x64' | 'arm64';

export interface ReleaseTarget {
  os: Os;
  arch: Arch;
  /** `dist/byre-<os>-<arch>`. */
  artifact: string;
  /** bun's --compile target. */
  bunTarget: string;
  /** The npm package carrying that bun runtime (a bun optionalDependency, pinned in package-lock.json). */
  runtimePackage: string;
}

function target(os: Os, arch: Arch): ReleaseTarget {
  // bun's npm packages spell arm64 the kernel's way.
  const npmArch = arch === 'arm64' ? 'aarch64' : arch;
  return {
    os,
    arch,
    artifact: `byre-${os}-${arch}`,
    bunTarget: `bun-${os}-${arch}`,
    runtimePackage: `@oven/bun-${os}-${npmArch}`,
  };
}

export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  target('linux', 'x64'),
  target('linux', 'arm64'),
  target('darwin', 'arm64'),
  target('darwin', 'x64'),
];

/** `sha256sum`-compatible lines (`<hex>  <name>`), sorted by name, so `sha256sum -c` checks them. */
export function renderSums(sums: ReadonlyMap<string, string>): string {
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, hex]) => {
      if (!/^[0-9a-f]{64}$/.test(hex)) throw new RangeError(`not a sha256: ${hex}`);
      if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new RangeError(`not a plain file name: ${name}`);
      return `${hex}  ${name}\n`;
    })
    .join('');
}

/**
 * The `integrity` package-lock.json pins for `pkg` at `version`: bun's
 * optionalDependencies are locked for every platform even though npm installs
 * only this machine's, so the runtime a cross-compile embeds is verified
 * against the same lockfile as every other dependency.
 */
export function lockedIntegrity(lock: unknown, pkg: string, version: string): string {
  const entry = (lock as { packages?: Record<string, { version?: string; integrity?: string }> })
    .packages?.[`node_modules/${pkg}`];
  if (entry === undefined) throw new Error(`package-lock.json does not lock ${pkg}`);
  if (entry.version !== version) {
    throw new Error(
      `package-lock.json locks ${pkg}@${entry.version ?? '?'}, but bun is ${version}; run npm install`,
    );
  }
  if (entry.integrity === undefined || !entry.integrity.startsWith('sha512-')) {
    throw new Error(`package-lock.json has no sha512 integrity for ${pkg}`);
  }
  return entry.integrity;
}
