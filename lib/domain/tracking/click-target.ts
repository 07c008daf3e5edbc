/**
 * Where a click on a tracked link goes (pure). The stored URL is what the
 * message's HTML said, decoded: it may hold any character. `Location`
 * carries it as the WHATWG URL parser serialises it (host in punycode, the
 * rest percent-encoded: ASCII only); a URL that the parser refuses gets a
 * small page that shows the link instead of a redirect (never a 500).
 */
export type ClickTarget = { kind: "redirect"; location: string } | { kind: "page"; url: string };

export function clickTarget(url: string): ClickTarget {
  let href: string | undefined;
  try {
    href = new URL(url).href;
  } catch {
    href = undefined;
  }
  if (href !== undefined && (href.startsWith("http://") || href.startsWith("https://")) && isHeaderSafe(href)) return { kind: "redirect", location: href };
  return { kind: "page", url };
}

/** Visible ASCII only: what a header value may carry without question. */
function isHeaderSafe(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}
