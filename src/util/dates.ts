/** ISO `YYYY-MM-DD` → `YYYYMMDD` (folder and file-name form). */
export const compactDate = (iso: string): string => iso.replaceAll('-', '');

/** The water year of an ISO date (WY Y runs 1 October Y − 1 … 30 September Y): its year, plus one from October on. */
export const waterYearOf = (iso: string): number =>
  Number(iso.slice(0, 4)) + (iso.slice(5, 7) >= '10' ? 1 : 0);

/** `YYYYMMDD` (folder and file-name form) → ISO `YYYY-MM-DD`. */
export function isoDate(compact: string): string {
  return `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`;
}

const DAY_MS = 86_400_000;

/** Today's date, ISO, UTC. */
export const todayUtc = (): string => new Date().toISOString().slice(0, 10);

/** The ISO date `days` after `iso` (before, when negative). */
export const addDays = (iso: string, days: number): string =>
  new Date(Date.parse(iso) + days * DAY_MS).toISOString().slice(0, 10);

/** Whole days from ISO date `from` to ISO date `to`. */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS);
