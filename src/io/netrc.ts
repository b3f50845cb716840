/** One `machine` entry of a ~/.netrc file (curl's and wget's credentials store). */
export interface NetrcEntry {
  readonly machine: string;
  readonly login: string;
  readonly password: string;
}

/** The `machine … login … password …` entries of a .netrc text (`default` is machine '*'). */
export function parseNetrc(text: string): NetrcEntry[] {
  const tokens = text.replace(/#.*$/gm, '').split(/\s+/).filter(Boolean);
  const out: NetrcEntry[] = [];
  let cur: { machine: string; login: string; password: string } | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === 'machine' || t === 'default') {
      if (cur) out.push(cur);
      cur = { machine: t === 'default' ? '*' : (tokens[++i] ?? ''), login: '', password: '' };
    } else if (cur && (t === 'login' || t === 'password')) cur[t] = tokens[++i] ?? '';
    else if (t === 'macdef') break; // macros run to a blank line; nothing after them is needed
  }
  if (cur) out.push(cur);
  return out;
}

/** The entry for `host`, else the `default` entry, else null. */
export function netrcFor(entries: readonly NetrcEntry[], host: string): NetrcEntry | null {
  return entries.find((e) => e.machine === host) ?? entries.find((e) => e.machine === '*') ?? null;
}
