// Rules for the package and file lists: [sources], apt, skills, [files].

import { APT_NAME, CONTROL, DIGEST, isAbsolute, isContainedRelative } from '../grammar.js';
import type { PathSegment } from '../locate.js';
import type { RawLayer } from '../schema.js';
import { finding, missing, q, type Finding } from './finding.js';

export function checkSources(layer: RawLayer): Finding[] {
  const out: Finding[] = [];
  for (const [id, source] of Object.entries(layer.sources ?? {})) {
    const path: PathSegment[] = ['sources', id];
    if (source.uri === undefined) out.push(missing(path, 'uri', `source ${q(id)}`));
    else if (source.uri === '' || /[\s]/.test(source.uri) || CONTROL.test(source.uri)) {
      out.push(
        finding(
          'config.source-uri-invalid',
          [...path, 'uri'],
          `source ${q(id)}: uri must be non-empty with no whitespace or control characters`,
          'write the manifest URL exactly, e.g. "https://example.com/skill.toml"',
        ),
      );
    }
    if (source.digest !== undefined && !DIGEST.test(source.digest)) {
      out.push(
        finding(
          'config.source-digest-invalid',
          [...path, 'digest'],
          `source ${q(id)}: digest ${q(source.digest)} is not sha256: plus 64 lowercase hex digits`,
          'copy the digest byre printed at install, or remove it',
        ),
      );
    }
  }
  return out;
}

export function checkApt(layer: RawLayer): Finding[] {
  return (layer.apt ?? []).flatMap((entry, i) => {
    const name = entry.startsWith('!') ? entry.slice(1) : entry;
    if (APT_NAME.test(name)) return [];
    return [
      finding(
        'config.apt-invalid',
        ['apt', i],
        `apt package ${q(entry)}: not a valid package name`,
        'write a Debian package name such as "build-essential" (prefix "!" to remove one)',
      ),
    ];
  });
}

export function checkSkills(layer: RawLayer): Finding[] {
  return (layer.skills ?? []).flatMap((entry, i) => {
    if (entry !== '' && entry !== '!' && !/\s/.test(entry)) return [];
    return [
      finding(
        'config.skill-invalid',
        ['skills', i],
        `skill ${q(entry)} names no package`,
        'write a skill name such as "firewall" or "owner/name" (prefix "!" to remove one)',
      ),
    ];
  });
}

export function checkFiles(layer: RawLayer): Finding[] {
  return Object.entries(layer.files ?? {}).flatMap(([src, dest]) => {
    const path: PathSegment[] = ['files', src];
    const out: Finding[] = [];
    if (!isContainedRelative(src)) {
      out.push(
        finding(
          'config.files-src-invalid',
          path,
          `files source ${q(src)} must be a path inside the project`,
          'write a project-relative path such as "./seed/config.json" (no absolute path, no ".." escape)',
        ),
      );
    }
    if (!isAbsolute(dest) || CONTROL.test(dest)) {
      const why = isAbsolute(dest) ? ', with no control characters' : '';
      out.push(
        finding(
          'config.files-dest-not-absolute',
          path,
          `files destination ${q(dest)} must be an absolute path in the box${why}`,
          'write the destination as an absolute path such as "/opt/seed"',
        ),
      );
    }
    return out;
  });
}
