// Validation of tar entries arriving on `deliver --tar -` (a remote byre's
// upload, or any script's). Only plain files and directories with relative,
// normal paths pass; everything else refuses the whole delivery before a byte
// lands. Pure.

export type TarEntryCheck =
  | { ok: true; components: string[]; kind: 'file' | 'dir' }
  | { ok: false; rule: string; reason: string };

export interface TarHeaderLike {
  name: string;
  type?: string | null;
}

export function checkTarEntry(header: TarHeaderLike): TarEntryCheck {
  const type = header.type ?? 'file';
  const kind = type === 'file' ? 'file' : type === 'directory' ? 'dir' : null;
  if (kind === null) {
    const link = type === 'symlink' || type === 'link';
    return {
      ok: false,
      rule: link ? 'transfer.tar-link' : 'transfer.tar-special',
      reason: link ? 'links are not delivered' : `a ${type} entry is not a file or directory`,
    };
  }
  let name = header.name;
  if (name.startsWith('/')) {
    return { ok: false, rule: 'transfer.tar-absolute', reason: 'an absolute path' };
  }
  if (kind === 'dir' && name.endsWith('/')) name = name.slice(0, -1);
  const components = name.split('/');
  if (name === '' || components.some((c) => c === '' || c === '.')) {
    return { ok: false, rule: 'transfer.tar-path', reason: 'an empty or `.` path component' };
  }
  if (components.includes('..')) {
    return { ok: false, rule: 'transfer.tar-dotdot', reason: 'a `..` path component' };
  }
  if (name.includes('\0')) {
    return { ok: false, rule: 'transfer.tar-path', reason: 'a NUL in the path' };
  }
  return { ok: true, components, kind };
}
