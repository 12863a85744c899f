// A package manifest, one file per seam: the schema and types, the [package]
// rules, the skill body rules, and the parse that runs them.

export { parseSkillManifest, parseTemplatePackage } from './parse.js';
export {
  packageFindings,
  satisfiesRequiresByre,
  toPackageMeta,
  type PackageContext,
} from './package-rules.js';
export {
  MANIFEST_FILE,
  MAX_CONTAINMENT_CHARS,
  MAX_CONTEXT_BYTES,
  NETWORK_POSTURE,
  PACKAGE_API,
  PACKAGE_SHAPE,
  SHA256_HEX,
  type ManifestResult,
  type PackageFileEntry,
  type PackageKind,
  type PackageMeta,
  type SkillManifest,
} from './schema.js';
