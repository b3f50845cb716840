/**
 * The environment for a snowdb process with glibc's malloc backing large buffers by transparent
 * huge pages (glibc ≥ 2.35, THP in `madvise` or `always` mode; ignored elsewhere). A SNODAS grid is
 * 46 MB: first touch of 4 KiB pages costs ~150 ms per grid on the VMs this runs on, of 2 MiB pages
 * ~10 ms (docs/deploy.md, BENCHMARKS.md 2026-11-26). Appends to the caller's own tunables.
 */
export const HUGE_PAGES = 'glibc.malloc.hugetlb=1';

export function withHugePages(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const now = env.GLIBC_TUNABLES;
  if (now?.includes('glibc.malloc.hugetlb')) return env;
  return { ...env, GLIBC_TUNABLES: now ? `${now}:${HUGE_PAGES}` : HUGE_PAGES };
}
