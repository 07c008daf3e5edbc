import { Tokenizer, type QuoteType, type TokenizerCallbacks } from "htmlparser2";

/**
 * The one place where HTML bodies are read (docs/adr/0303): htmlparser2's
 * tokenizer (the HTML tokenizer states, entities decoded by its decoder),
 * fed in chunks with a turn of the event loop between them, so that a
 * 10 MB body never holds the process for longer than one chunk.
 *
 * Rewriting splices at the tokenizer's indices: everything outside the
 * attributes that are replaced stays byte for byte as it was.
 *
 * Used by delivery (link rewriting and the open pixel), the click lookup
 * (the list of links) and the sandbox view (app/(dashboard)/sandbox).
 */

/** Characters tokenized between two turns of the event loop. */
export const SCAN_CHUNK = 16 * 1024;

/** A longer link is left as it is (not tracked): no redirect carries a URL this long. */
export const MAX_TRACKED_URL_LENGTH = 8192;

/** Attribute values are read no further than this (HtmlAttribute.truncated past it): nothing we look for is longer. */
export const MAX_ATTRIBUTE_CHARS = 16 * 1024;

export interface HtmlAttribute {
  /** Lowercase name. */
  name: string;
  /** The name as written (its case kept when the attribute is rewritten). */
  rawName: string;
  /** The value with entities decoded ("" when the attribute has no value), at most MAX_ATTRIBUTE_CHARS. */
  value: string;
  /** The value was longer than MAX_ATTRIBUTE_CHARS: `value` is its beginning only. */
  truncated: boolean;
  /** Index of the name's first character. */
  start: number;
  /** Index just past the value (past its closing quote when quoted). */
  end: number;
}

export interface HtmlTag {
  /** Lowercase tag name ("" for names longer than 64 characters). */
  name: string;
  /** Index of `<`. */
  start: number;
  /** Index just past `>`. */
  end: number;
  /** The first occurrence of each attribute asked for (HtmlVisitor.attributes), in document order. */
  attributes: HtmlAttribute[];
}

export interface HtmlVisitor {
  /** Lowercase names of the attributes to report; all others are skipped unread. */
  attributes: ReadonlySet<string>;
  openTag?(tag: HtmlTag): void;
  /** A closing tag; `start` is the index of its `<`. */
  closeTag?(name: string, start: number): void;
  /** Text (entities decoded), in pieces. */
  text?(text: string): void;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The decoder already maps surrogates and values past U+10FFFF to U+FFFD; this holds whatever it hands over. */
function codePointText(cp: number): string {
  return Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : "\uFFFD";
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

export interface ScanResult {
  /** Index of the `<` of a start tag that the document leaves unfinished at its end (browsers drop it). */
  unfinishedTagStart?: number;
}

/** Tokenizes `html` once, in chunks, reporting tags, closing tags and text to `visitor`. */
export async function scanHtml(html: string, visitor: HtmlVisitor, chunk = SCAN_CHUNK): Promise<ScanResult> {
  let tag: HtmlTag | undefined;
  let attr: { name: string; rawName: string; start: number; parts: string[]; size: number } | undefined;
  const keep = (text: string) => {
    if (!attr) return;
    if (attr.size <= MAX_ATTRIBUTE_CHARS) attr.parts.push(text.length > MAX_ATTRIBUTE_CHARS ? text.slice(0, MAX_ATTRIBUTE_CHARS + 1) : text);
    attr.size += text.length;
  };
  const lower = (start: number, end: number, max: number) => (end - start <= max ? html.slice(start, end).toLowerCase() : "");

  const endTag = (gtIndex: number) => {
    if (tag) {
      tag.end = gtIndex + 1;
      visitor.openTag?.(tag);
    }
    tag = undefined;
    attr = undefined;
  };

  const cbs: TokenizerCallbacks = {
    onopentagname(start, end) {
      tag = { name: lower(start, end, 64), start: start - 1, end: -1, attributes: [] };
      attr = undefined;
    },
    onattribname(start, end) {
      attr = undefined;
      if (!tag) return;
      const name = lower(start, end, 32);
      if (name && visitor.attributes.has(name) && !tag.attributes.some((a) => a.name === name)) {
        attr = { name, rawName: html.slice(start, end), start, parts: [], size: 0 };
      }
    },
    onattribdata(start, end) {
      if (attr) keep(html.slice(start, Math.min(end, start + MAX_ATTRIBUTE_CHARS + 1)));
    },
    onattribentity(cp) {
      keep(codePointText(cp));
    },
    onattribend(_quote: QuoteType, end) {
      if (attr && tag) {
        const truncated = attr.size > MAX_ATTRIBUTE_CHARS;
        const value = attr.parts.join("");
        tag.attributes.push({ name: attr.name, rawName: attr.rawName, value: truncated ? value.slice(0, MAX_ATTRIBUTE_CHARS) : value, truncated, start: attr.start, end });
      }
      attr = undefined;
    },
    onopentagend: endTag,
    onselfclosingtag: endTag,
    onclosetag(start, end) {
      if (!visitor.closeTag) return;
      // `</` may be followed by white space before the name: find the `<`.
      let i = start - 1;
      while (i > 0 && isSpace(html.charCodeAt(i))) i--;
      visitor.closeTag(lower(start, end, 64), i - 1);
    },
    ontext(start, end) {
      visitor.text?.(html.slice(start, end));
    },
    ontextentity(cp) {
      visitor.text?.(codePointText(cp));
    },
    oncdata() {},
    oncomment() {},
    ondeclaration() {},
    onprocessinginstruction() {},
    onend() {},
  };

  const tokenizer = new Tokenizer({ decodeEntities: true }, cbs);
  for (let i = 0; i < html.length; i += chunk) {
    if (i > 0) await yieldToEventLoop();
    tokenizer.write(html.slice(i, i + chunk));
  }
  // A tag left unfinished at the end is dropped (as browsers do): endTag never runs for it.
  tokenizer.end();
  return tag ? { unfinishedTagStart: tag.start } : {};
}

/** An http(s) link that tracking may rewrite: decoded, trimmed, without white space, not over-long. */
export function trackableUrl(value: string): string | undefined {
  const url = value.trim();
  if (url.length > MAX_TRACKED_URL_LENGTH || /\s/u.test(url)) return undefined;
  const head = url.slice(0, 8).toLowerCase();
  const rest = head.startsWith("https://") ? 8 : head.startsWith("http://") ? 7 : -1;
  return rest > 0 && url.length > rest ? url : undefined;
}

export interface TrackingPlan {
  /** The trackable links: `href` of `<a>` tags, decoded, in document order; a click token names its index. */
  links: string[];
  /** Where each link's `href` attribute sits (same order as `links`). */
  spans: { start: number; end: number; rawName: string }[];
  /**
   * Index of the first `</body>`'s `<`; else the end of the document, or the
   * start of a tag left unfinished there (appended after it, the pixel's `>`
   * would finish that tag and bring its links to life).
   */
  pixelAt: number;
}

/** Reads the body once; the plan then renders each recipient's copy (renderTracking) without reading it again. */
export async function planTracking(html: string): Promise<TrackingPlan> {
  const plan: TrackingPlan = { links: [], spans: [], pixelAt: -1 };
  const scan = await scanHtml(html, {
    attributes: new Set(["href"]),
    openTag(tag) {
      if (tag.name !== "a") return;
      const href = tag.attributes[0];
      const url = href && !href.truncated ? trackableUrl(href.value) : undefined;
      if (!href || url === undefined) return;
      plan.links.push(url);
      plan.spans.push({ start: href.start, end: href.end, rawName: href.rawName });
    },
    closeTag(name, start) {
      if (name === "body" && plan.pixelAt < 0) plan.pixelAt = start;
    },
  });
  if (plan.pixelAt < 0) plan.pixelAt = scan.unfinishedTagStart ?? html.length;
  return plan;
}

export function escapeAttribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

export interface InjectOptions {
  /** Rewrites link number `index` (TrackingPlan.links) to this URL. */
  linkUrl?: (index: number, original: string) => string;
  /** URL of the open pixel, put before the first </body> (or at the end). */
  pixelUrl?: string;
}

/** The body with the plan's links rewritten and the pixel added; every other character as it was. */
export function renderTracking(html: string, plan: TrackingPlan, options: InjectOptions): string {
  const pieces = renderTrackingPieces(html, plan, options);
  return pieces.length === 1 ? pieces[0]! : pieces.join("");
}

/**
 * The same as renderTracking, as the pieces to concatenate (slices of the
 * body and the inserted text): the composer streams them, so a 10 MB copy
 * is never flattened into one string in one go.
 */
export function renderTrackingPieces(html: string, plan: TrackingPlan, options: InjectOptions): string[] {
  const edits: { start: number; end: number; text: string }[] = [];
  if (options.linkUrl) {
    plan.spans.forEach((span, i) => {
      edits.push({ start: span.start, end: span.end, text: `${span.rawName}="${escapeAttribute(options.linkUrl!(i, plan.links[i]!))}"` });
    });
  }
  if (options.pixelUrl) {
    const pixel = `<img src="${escapeAttribute(options.pixelUrl)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />`;
    // The pixel goes at a closing tag, never inside an attribute: it sorts among the link edits by position.
    let at = edits.findIndex((e) => e.start >= plan.pixelAt);
    if (at < 0) at = edits.length;
    edits.splice(at, 0, { start: plan.pixelAt, end: plan.pixelAt, text: pixel });
  }
  if (edits.length === 0) return [html];
  const pieces: string[] = [];
  let pos = 0;
  for (const e of edits) {
    pieces.push(html.slice(pos, e.start), e.text);
    pos = e.end;
  }
  pieces.push(html.slice(pos));
  return pieces;
}

/** The trackable links of an HTML body, decoded, in document order. */
export async function extractTrackableLinks(html: string): Promise<string[]> {
  return (await planTracking(html)).links;
}

export async function injectTracking(html: string, options: InjectOptions): Promise<string> {
  return renderTracking(html, await planTracking(html), options);
}
