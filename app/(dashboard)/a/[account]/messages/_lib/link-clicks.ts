import type { EventRecord } from "@/lib/contract/events";

/**
 * The links of the HTML that was sent, each with its `clicked` events (a
 * click's Url is the link's target as the message had it, lib/domain/tracking/
 * tracked-links.ts). A URL that appears twice shares its clicks, as a click
 * does not say which of the two was followed. Clicks on a URL no longer in the
 * list (none, unless the content changed) are left out.
 */
export interface LinkClicks {
  text: string;
  href: string;
  clicks: number;
}

export function linksWithClicks(links: readonly { text: string; href: string }[], events: readonly EventRecord[]): LinkClicks[] {
  const clicks = new Map<string, number>();
  for (const e of events) if (e.Event === "clicked" && e.Url) clicks.set(e.Url, (clicks.get(e.Url) ?? 0) + 1);
  return links.map((l) => ({ text: l.text, href: l.href, clicks: clicks.get(l.href) ?? 0 }));
}
