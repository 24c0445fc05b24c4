/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function headingAnchors(titles: string[]): string[] {
  const seen = new Map<string, number>();
  return titles.map((title) => {
    const slug = title.toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
    const repeat = seen.get(slug) ?? 0;
    seen.set(slug, repeat + 1);
    return repeat ? `${slug}-${repeat}` : slug;
  });
}
