// Rules for a manifest's [package] table (id, kind, api, requires_byre,
// payload files), shared by skill.toml and template.config. Pure.

import { semverLib } from '../../lazy-deps.js';
import type { PathSegment } from '../../config/locate.js';
import { CONTROL, isContainedRelative, PACKAGE_REF } from '../../config/grammar.js';
import { finding, q, type Finding } from '../../config/rules/finding.js';
import {
  MANIFEST_FILE,
  PACKAGE_API,
  SHA256_HEX,
  type PackageKind,
  type PackageMeta,
  type RawPackage,
} from './schema.js';

export interface PackageContext {
  kind: PackageKind;
}

export function packageFindings(raw: RawPackage, ctx: PackageContext): Finding[] {
  const out: Finding[] = [];
  const path: PathSegment[] = ['package'];
  if (raw.id !== undefined && !PACKAGE_REF.test(raw.id)) {
    out.push(
      finding(
        'package.id-invalid',
        [...path, 'id'],
        `package id ${q(raw.id)} is not a package id`,
        'write a bare name ("mytool") or owner/name ("me/mytool")',
      ),
    );
  }
  if (raw.kind !== undefined && raw.kind !== ctx.kind) {
    out.push(
      finding(
        'package.kind-mismatch',
        [...path, 'kind'],
        `package kind ${q(raw.kind)} in a ${MANIFEST_FILE[ctx.kind]}; want ${q(ctx.kind)}`,
        `set kind = ${q(ctx.kind)}`,
      ),
    );
  }
  if (raw.package_api !== undefined && raw.package_api !== PACKAGE_API) {
    out.push(
      finding(
        'package.api-unsupported',
        [...path, 'package_api'],
        `package_api ${raw.package_api} is not supported by this byre (it reads ${PACKAGE_API})`,
        'upgrade byre, or ask the author for a package_api = 1 release',
      ),
    );
  }
  if (raw.requires_byre !== undefined && !/^(>=)?\d+\.\d+\.\d+$/.test(raw.requires_byre)) {
    out.push(
      finding(
        'package.requires-byre-invalid',
        [...path, 'requires_byre'],
        `requires_byre ${q(raw.requires_byre)} is not a version`,
        'write a minimum version such as ">=0.1.0"',
      ),
    );
  }
  if (raw.description !== undefined && CONTROL.test(raw.description)) {
    out.push(
      finding(
        'package.description-invalid',
        [...path, 'description'],
        'package description must be one line',
        'remove the newline',
      ),
    );
  }
  const dests = new Set<string>();
  (raw.files ?? []).forEach((file, i) => {
    const at: PathSegment[] = [...path, 'files', i];
    for (const key of ['src', 'dest', 'sha256'] as const) {
      if (file[key] === undefined) {
        out.push(
          finding(
            'package.file-missing-key',
            [...at, key],
            `[[package.files]] entry needs ${key}`,
            `add ${key} = …`,
          ),
        );
      }
    }
    if (file.src !== undefined && (file.src === '' || CONTROL.test(file.src))) {
      out.push(
        finding(
          'package.file-src-invalid',
          [...at, 'src'],
          `payload src ${q(file.src)} is empty or has control characters`,
          'write the path or URL of the file, relative to the manifest',
        ),
      );
    }
    if (file.dest !== undefined) {
      if (
        !isContainedRelative(file.dest) ||
        file.dest.split('/').some((s) => s === '..' || s === '.')
      ) {
        out.push(
          finding(
            'skill.payload-escapes',
            [...at, 'dest'],
            `payload dest ${q(file.dest)} must be a plain package-relative path`,
            'write dest as a relative path inside the package, without ".." or "."',
          ),
        );
      } else if (dests.has(file.dest) || file.dest === MANIFEST_FILE[ctx.kind]) {
        out.push(
          finding(
            'package.file-duplicate',
            [...at, 'dest'],
            `payload dest ${q(file.dest)} is claimed twice (or is the manifest)`,
            'keep one entry per destination',
          ),
        );
      }
      dests.add(file.dest);
    }
    if (file.sha256 !== undefined && !SHA256_HEX.test(file.sha256)) {
      out.push(
        finding(
          'package.file-sha256-invalid',
          [...at, 'sha256'],
          `sha256 ${q(file.sha256)} is not 64 lowercase hex digits`,
          'recompute it with byre skill pack',
        ),
      );
    }
  });
  return out;
}

export function toPackageMeta(raw: RawPackage): PackageMeta {
  return {
    id: raw.id ?? null,
    version: raw.version ?? null,
    kind: raw.kind === 'skill' || raw.kind === 'template' ? raw.kind : null,
    packageApi: raw.package_api ?? null,
    requiresByre: raw.requires_byre ?? null,
    description: raw.description ?? null,
    files:
      raw.files === undefined
        ? null
        : raw.files.map((f) => ({
            src: f.src ?? '',
            dest: f.dest ?? '',
            sha256: f.sha256 ?? '',
            executable: f.executable ?? false,
          })),
  };
}

/**
 * Whether `version` satisfies `requires_byre` (">=x.y.z" or "x.y.z", both
 * minimums), by semver's ordering: a prerelease (1.0.0-rc.1) sits below its
 * release, so it does not satisfy ">=1.0.0". An unparseable version satisfies nothing.
 */
export function satisfiesRequiresByre(requirement: string, version: string): boolean {
  const minimum = requirement.replace(/^>=/, '');
  const semver = semverLib();
  const have = semver.valid(version);
  return semver.valid(minimum) !== null && have !== null && semver.gte(have, minimum);
}
