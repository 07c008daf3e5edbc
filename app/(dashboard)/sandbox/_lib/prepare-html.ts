/**
 * Turns a captured message's HTML into what the sandbox inbox shows (pure):
 * - the open pixel (`/t/o/…`) is taken out of the document and handed to
 *   the page, which loads it from the dashboard's own origin once per view
 *   (the page's CSP allows images from 'self' only, and an absolute
 *   MAILROOM_PUBLIC_URL may name another host than the one the browser uses);
 * - tracked links (`/t/c/…`) and the unsubscribe URL become paths on the
 *   same origin, so following one goes through the real redirect handler;
 * - `cid:` images become data: URLs of the message's inline parts;
 * - a `<base target="_blank">` opens links in a new tab (the iframe may
 *   open popups but runs no script and cannot navigate the dashboard).
 */

export interface InlinePart {
  contentId: string;
  contentType: string;
  contentBase64: string;
}

export interface MessageLink {
  text: string;
  /** Where the link points in the document shown (a same-origin path for tracked links). */
  href: string;
  tracked: boolean;
}

export interface PreparedHtml {
  doc: string;
  pixelPath: string | null;
  links: MessageLink[];
}

/** The path of a tracking URL of the given kind (`/t/o/…`), or null when the URL is no such thing. */
export function trackingPath(url: string, kind: "o" | "c" | "u"): string | null {
  try {
    const parsed = new URL(url.replace(/&amp;/g, "&"), "http://placeholder.invalid");
    if (!/^https?:$/.test(parsed.protocol)) return null;
    return parsed.pathname.startsWith(`/t/${kind}/`) && /^\/t\/[ocu]\/[A-Za-z0-9._-]+$/.test(parsed.pathname) ? parsed.pathname : null;
  } catch {
    return null;
  }
}

function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, " ")
    .trim();
}

export function prepareSandboxHtml(html: string, inline: InlinePart[]): PreparedHtml {
  let pixelPath: string | null = null;
  let doc = html.replace(/<img\b[^>]*\bsrc\s*=\s*(["'])([^"']*)\1[^>]*>/gi, (tag, _q: string, src: string) => {
    const path = trackingPath(src, "o");
    if (!path) return tag;
    pixelPath ??= path;
    return "";
  });

  const images = new Map(inline.filter((p) => p.contentId).map((p) => [p.contentId.toLowerCase(), `data:${p.contentType};base64,${p.contentBase64}`]));
  doc = doc.replace(/(["'(])cid:([^"')\s]+)/gi, (m, q: string, id: string) => {
    const data = images.get(decodeURIComponent(id).toLowerCase());
    return data ? `${q}${data}` : m;
  });

  const links: MessageLink[] = [];
  doc = doc.replace(/<a\b([^>]*?)\bhref\s*=\s*(["'])([^"']*)\2([^>]*)>([\s\S]*?)<\/a>/gi, (_m, pre: string, q: string, href: string, post: string, inner: string) => {
    const path = trackingPath(href, "c") ?? trackingPath(href, "u");
    const target = path ?? href.replace(/&amp;/g, "&");
    if (/^(https?:|\/)/i.test(target)) links.push({ text: stripTags(inner) || target, href: target, tracked: path !== null });
    return `<a${pre}href=${q}${path ?? href}${q}${post}>${inner}</a>`;
  });

  const base = '<base target="_blank">';
  doc = /<head[^>]*>/i.test(doc) ? doc.replace(/<head[^>]*>/i, (h) => `${h}${base}`) : `${base}${doc}`;
  return { doc, pixelPath, links };
}
