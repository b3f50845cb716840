/** Dataset items and band-1 description parsed from a GDAL_METADATA XML string. */
export interface GdalMetadata {
  readonly items: Readonly<Record<string, string>>;
  readonly description: string | undefined;
}

const unescapeXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

export function parseGdalMetadata(xml: string | undefined): GdalMetadata {
  const items: Record<string, string> = {};
  let description: string | undefined;
  if (xml === undefined) return { items, description };
  for (const m of xml.matchAll(/<Item\s+([^>]*?)>([\s\S]*?)<\/Item>/g)) {
    const attrs = Object.fromEntries(
      [...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((a) => [a[1], unescapeXml(a[2] ?? '')]),
    );
    // GDAL escapes values twice (names once): undo both.
    const value = unescapeXml(unescapeXml(m[2] ?? ''));
    if (attrs.name === undefined) continue;
    if (attrs.sample === undefined) items[attrs.name] = value;
    else if (attrs.sample === '0' && attrs.role === 'description') description = value;
  }
  return { items, description };
}
