/**
 * Versions as posthog-node's `semver_*` operators read them: an optional `v`, then
 * MAJOR[.MINOR[.PATCH]] with missing parts as 0; a pre-release or build suffix and any fourth part
 * are ignored. posthog-node rejects leading zeros (`3.08`) and leaves such values to the server, whose
 * parser accepts them (`3.08` = 3.8.0): the `lenient` reading is that server rule.
 */
export type Version = readonly [major: number, minor: number, patch: number];

export interface VersionRange {
  readonly lower: Version;
  /** Exclusive. */
  readonly upper: Version;
}

export type VersionReading = 'strict' | 'lenient';

function parsePart(part: string | undefined, reading: VersionReading): number | null {
  if (part === undefined || part === '') return 0;
  if (!/^\d+$/.test(part)) return null;
  if (reading === 'strict' && part.length > 1 && part.startsWith('0')) return null;
  return parseInt(part, 10);
}

export function parseVersion(value: string, reading: VersionReading): Version | null {
  const text = value.trim().replace(/^[vV]/, '');
  const base = (text.split('-')[0] ?? '').split('+')[0] ?? '';
  if (base === '' || base.startsWith('.')) return null;
  const parts = base.split('.');
  const major = parsePart(parts[0], reading);
  const minor = parsePart(parts[1], reading);
  const patch = parsePart(parts[2], reading);
  if (major === null || minor === null || patch === null) return null;
  return [major, minor, patch];
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

export function isWithin(version: Version, range: VersionRange): boolean {
  return compareVersions(version, range.lower) >= 0 && compareVersions(version, range.upper) < 0;
}

/** `~1.2.3` → [1.2.3, 1.3.0) */
export function tildeRange(value: string, reading: VersionReading): VersionRange | null {
  const version = parseVersion(value, reading);
  if (!version) return null;
  const [major, minor] = version;
  return { lower: version, upper: [major, minor + 1, 0] };
}

/** `^1.2.3` → [1.2.3, 2.0.0); `^0.2.3` → [0.2.3, 0.3.0); `^0.0.3` → [0.0.3, 0.0.4) */
export function caretRange(value: string, reading: VersionReading): VersionRange | null {
  const version = parseVersion(value, reading);
  if (!version) return null;
  const [major, minor, patch] = version;
  if (major > 0) return { lower: version, upper: [major + 1, 0, 0] };
  if (minor > 0) return { lower: version, upper: [0, minor + 1, 0] };
  return { lower: version, upper: [0, 0, patch + 1] };
}

/** `text` without every trailing repetition of `suffix` (a loop: `/(\.\*)+$/` is quadratic). */
function stripAll(text: string, suffix: string): string {
  let end = text.length;
  while (end >= suffix.length && text.startsWith(suffix, end - suffix.length)) end -= suffix.length;
  return text.slice(0, end);
}

/**
 * `1.*` → [1.0.0, 2.0.0); `1.2.*` → [1.2.0, 1.3.0). posthog-node strips one trailing `.*` or `*`;
 * the server's reading also takes `1.*.*` (as `1.*`) and `*` alone (every version, `null` bounds).
 */
export function wildcardRange(value: string, reading: VersionReading): VersionRange | 'any' | null {
  const text = value.trim().replace(/^[vV]/, '');
  const cleaned = reading === 'strict' ? text.replace(/\.\*$/, '').replace(/\*$/, '') : stripAll(text, '.*');
  if (reading === 'lenient' && (cleaned === '*' || cleaned === '')) return 'any';
  if (cleaned === '') return null;
  const parts = cleaned.split('.');
  const major = parsePart(parts[0], reading);
  if (major === null || parts[0] === '') return null;
  if (parts.length === 1) return { lower: [major, 0, 0], upper: [major + 1, 0, 0] };
  const minor = parsePart(parts[1], reading);
  if (minor === null || parts[1] === '') return null;
  return { lower: [major, minor, 0], upper: [major, minor + 1, 0] };
}
