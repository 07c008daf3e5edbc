/**
 * Open pixel and link rewriting of HTML bodies (pure). Links are the
 * `href` values of `<a>` tags that start with http:// or https://, in
 * document order; a link's index is its position in that list, which is
 * how a click token refers to it (the redirect re-reads the stored HTML).
 */

const ANCHOR_HREF = /(<a\b[^>]*?\bhref\s*=\s*)(?:"([^"]*)"|'([^']*)')/gi;

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
}

function isTrackable(url: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(url.trim());
}

/** The trackable links of an HTML body, decoded, in document order. */
export function extractTrackableLinks(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(ANCHOR_HREF)) {
    const url = decodeEntities(m[2] ?? m[3] ?? "").trim();
    if (isTrackable(url)) out.push(url);
  }
  return out;
}

export interface InjectOptions {
  /** Rewrites link number `index` (see extractTrackableLinks) to this URL. */
  linkUrl?: (index: number, original: string) => string;
  /** URL of the open pixel, appended before </body> (or at the end). */
  pixelUrl?: string;
}

export function injectTracking(html: string, options: InjectOptions): string {
  let out = html;
  if (options.linkUrl) {
    let index = 0;
    out = out.replace(ANCHOR_HREF, (whole, prefix: string, dq: string | undefined, sq: string | undefined) => {
      const url = decodeEntities(dq ?? sq ?? "").trim();
      if (!isTrackable(url)) return whole;
      return `${prefix}"${escapeAttr(options.linkUrl!(index++, url))}"`;
    });
  }
  if (options.pixelUrl) {
    const pixel = `<img src="${escapeAttr(options.pixelUrl)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />`;
    const close = out.search(/<\/body\s*>/i);
    out = close >= 0 ? out.slice(0, close) + pixel + out.slice(close) : out + pixel;
  }
  return out;
}
