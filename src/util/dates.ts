/** `YYYYMMDD` (folder and file-name form) → ISO `YYYY-MM-DD`. */
export function isoDate(compact: string): string {
  return `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`;
}
