import { scanHtml } from "./tracking-html";

/**
 * The readable text of an HTML body, for a message that carries no text
 * part (an inbound post's TextBody, the sandbox's text view). Read by the
 * one tokenizer of tracking-html.ts, in chunks with turns of the event loop
 * between them, with no tree and no stack: linear whatever the nesting.
 * (mailparser's own conversion builds a DOM and walks it recursively: 3,000
 * nested `<div>`s, 15 KB, failed the whole parse, and 1,000,000 ran for
 * minutes; docs/adr/0805.)
 */

/** Tags whose content is not text a reader sees. */
const HIDDEN = new Set(["script", "style", "head", "title", "template", "noscript"]);
/** Tags that end a line before and after them. */
const BLOCK = new Set([
  "p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "blockquote", "pre", "address",
  "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd", "table", "tr", "thead", "tbody", "tfoot",
  "caption", "form", "fieldset", "figure", "figcaption", "hr", "center",
]);

export async function htmlToPlainText(html: string): Promise<string> {
  const out: string[] = [];
  /** Inside a hidden element: the name that ends it (no stack: its first closing tag ends it, as a browser's parser does for these raw-text elements). */
  let hiddenUntil: string | undefined;
  // Line breaks and the cell space owed before the next text, not pushed per tag: a million nested
  // blocks would be two million pieces to join, split and walk in one synchronous turn at the end.
  // Two breaks are all that matter (tidyLines keeps at most one empty line in a row).
  let breaks = 0;
  let space = false;
  const newline = () => {
    if (breaks < 2) breaks++;
  };
  await scanHtml(html, {
    attributes: new Set(),
    openTag(tag) {
      if (hiddenUntil) return;
      if (HIDDEN.has(tag.name)) hiddenUntil = tag.name;
      else if (tag.name === "br") newline();
      else if (tag.name === "td" || tag.name === "th") space = true;
      else if (BLOCK.has(tag.name)) newline();
    },
    closeTag(name) {
      if (hiddenUntil) {
        if (name === hiddenUntil) hiddenUntil = undefined;
        return;
      }
      if (BLOCK.has(name)) newline();
    },
    text(text) {
      if (hiddenUntil) return;
      if (breaks) out.push("\n".repeat(breaks));
      if (space) out.push(" ");
      breaks = 0;
      space = false;
      out.push(text.replace(/[ \t\r\n\f\u00a0]+/g, " "));
    },
  });
  return tidyLines(out.join(""));
}

/** Each line trimmed, at most one empty line in a row, none at either end. Linear: one pass over the lines. */
function tidyLines(text: string): string {
  const lines: string[] = [];
  let empty = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") {
      empty++;
      continue;
    }
    if (lines.length > 0 && empty > 0) lines.push("");
    empty = 0;
    lines.push(line);
  }
  return lines.join("\n");
}

/** A message's text: its text parts (mailparser's `text`), else the text read from its HTML, else "". */
export async function messageText(text: string | undefined, html: string | false | undefined): Promise<string> {
  if (text?.trim()) return text;
  return typeof html === "string" ? htmlToPlainText(html) : "";
}
