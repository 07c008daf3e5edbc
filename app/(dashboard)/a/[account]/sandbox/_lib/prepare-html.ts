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
 *   open popups but runs no script and cannot navigate the dashboard);
 * - every `<a>` and `<area>` gets `rel="noopener noreferrer"` as its first
 *   attribute (the first of a repeated attribute wins), so a message's own
 *   `rel="opener"` gives the new tab no handle on the frame (ADR 0601).
 */

import { escapeAttribute, scanHtml, type HtmlAttribute } from "@/lib/tracking/tracking-html";

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
    const parsed = new URL(url, "http://placeholder.invalid");
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    return parsed.pathname.startsWith(`/t/${kind}/`) && /^\/t\/[ocu]\/[A-Za-z0-9._-]+$/.test(parsed.pathname) ? parsed.pathname : null;
  } catch {
    return null;
  }
}

/** Put right after a link's tag name: ahead of the message's own rel, which the browser then ignores. */
const NO_OPENER = ' rel="noopener noreferrer"';

/** How much of a link's text the list beside the message shows. */
const LINK_TEXT_MAX = 200;

/**
 * Reads the HTML with the tokenizer of lib/tracking/tracking-html.ts (in
 * chunks, entities decoded) and splices the changes in at its indices:
 * the rest of the document is shown exactly as captured.
 */
export async function prepareSandboxHtml(html: string, inline: InlinePart[]): Promise<PreparedHtml> {
  const images = new Map(inline.filter((p) => p.contentId).map((p) => [p.contentId.toLowerCase(), `data:${p.contentType};base64,${p.contentBase64}`]));
  const edits: { start: number; end: number; text: string }[] = [];
  const links: (MessageLink & { parts: string[]; size: number })[] = [];
  let pixelPath: string | null = null;
  let openLink: (typeof links)[number] | undefined;
  let baseAt = -1;
  const replaceAttribute = (a: HtmlAttribute, value: string) => edits.push({ start: a.start, end: a.end, text: `${a.rawName}="${escapeAttribute(value)}"` });

  await scanHtml(html, {
    attributes: new Set(["src", "href", "background"]),
    openTag(tag) {
      const attr = (name: string) => tag.attributes.find((a) => a.name === name);
      // First: the edits go in document order, and this one precedes every attribute's.
      if (tag.name === "a" || tag.name === "area") {
        const afterName = tag.start + 1 + tag.name.length;
        edits.push({ start: afterName, end: afterName, text: NO_OPENER });
      }
      const src = attr("src");
      if (tag.name === "img" && src && !src.truncated) {
        const path = trackingPath(src.value.trim(), "o");
        if (path) {
          pixelPath ??= path;
          edits.push({ start: tag.start, end: tag.end, text: "" });
          return;
        }
      }
      for (const a of [src, attr("background")]) {
        const value = a?.value.trim() ?? "";
        if (!a || a.truncated || value.slice(0, 4).toLowerCase() !== "cid:") continue;
        let id: string;
        try {
          id = decodeURIComponent(value.slice(4));
        } catch {
          id = value.slice(4);
        }
        const data = images.get(id.toLowerCase());
        if (data) replaceAttribute(a, data);
      }
      if (tag.name === "head" && baseAt < 0) baseAt = tag.end;
      if (tag.name === "a") {
        openLink = undefined;
        const href = attr("href");
        if (!href || href.truncated) return;
        const value = href.value.trim();
        const path = trackingPath(value, "c") ?? trackingPath(value, "u");
        if (path) replaceAttribute(href, path);
        const target = path ?? value;
        const lower = target.slice(0, 8).toLowerCase();
        if (lower.startsWith("http:") || lower.startsWith("https:") || target.startsWith("/")) {
          openLink = { text: "", href: target, tracked: path !== null, parts: [], size: 0 };
          links.push(openLink);
        }
      }
    },
    closeTag(name) {
      if (name === "a") openLink = undefined;
    },
    text(text) {
      if (!openLink || openLink.size > LINK_TEXT_MAX * 4) return;
      const piece = text.slice(0, LINK_TEXT_MAX * 4);
      openLink.parts.push(piece);
      openLink.size += piece.length;
    },
  });

  const base = '<base target="_blank">';
  if (baseAt >= 0) {
    const at = edits.findIndex((e) => e.start >= baseAt);
    edits.splice(at < 0 ? edits.length : at, 0, { start: baseAt, end: baseAt, text: base });
  }
  const pieces: string[] = baseAt < 0 ? [base] : [];
  let pos = 0;
  for (const e of edits) {
    pieces.push(html.slice(pos, e.start), e.text);
    pos = e.end;
  }
  pieces.push(html.slice(pos));
  return {
    doc: pieces.join(""),
    pixelPath,
    links: links.map(({ parts, href, tracked }) => ({ text: collapseSpace(parts.join("")).slice(0, LINK_TEXT_MAX) || href, href, tracked })),
  };
}

/** Runs of white space become one space; the ends are trimmed. */
function collapseSpace(text: string): string {
  return text.split(/\s+/u).filter(Boolean).join(" ");
}
