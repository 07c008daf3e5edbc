import type { Draft, DraftAttachment } from "./draft";

/**
 * The edits the compose form makes to its draft, as pure functions of the
 * draft (or the part of it edited), so that each is tested on its own.
 */

/** Sets one member of the draft; what each field's onChange calls. */
export type SetDraftField = <K extends keyof Draft>(key: K, value: Draft[K]) => void;

export interface DomainChoice {
  name: string;
  verified: boolean;
}

/** The draft starts From the first verified domain, or none. */
export function firstVerifiedDomain(domains: DomainChoice[]): string {
  return domains.find((d) => d.verified)?.name ?? "";
}

/** The draft with its files' descriptions (what is validated and sent). */
export function withAttachments(draft: Draft, items: { file: { size: number }; meta: DraftAttachment }[]): Draft {
  return { ...draft, attachments: items.map((i) => ({ ...i.meta, size: i.file.size })) };
}

/** The local part as typed: a pasted full address keeps what is before its @. */
export function localPartOf(input: string): string {
  return input.replace(/@.*/, "");
}

/** The hint under the domain picker when the chosen domain is not verified. */
export function unverifiedDomainHint(domains: DomainChoice[], chosen: string): string | undefined {
  const selected = domains.find((d) => d.name === chosen);
  return selected && !selected.verified ? "Not verified: the API will refuse it (code 32)" : undefined;
}

/** The draft started from a template: its subject and bodies, the rest unchanged. */
export function withTemplate(draft: Draft, template: { subject: string; html: string; text: string }): Draft {
  return { ...draft, subject: template.subject, html: template.html, text: template.text };
}

/** The HTML body with an `<img>` of an inline attachment appended on a line of its own. */
export function appendInlineImage(html: string, cid: string, name: string): string {
  return `${html}${html && !html.endsWith("\n") ? "\n" : ""}<img src="cid:${cid}" alt="${name.replace(/"/g, "")}">\n`;
}

type Header = Draft["headers"][number];

export function editHeader(headers: Header[], index: number, change: Partial<Header>): Header[] {
  return headers.map((x, j) => (j === index ? { ...x, ...change } : x));
}

export function removeHeader(headers: Header[], index: number): Header[] {
  return headers.filter((_, j) => j !== index);
}

export function addHeader(headers: Header[]): Header[] {
  return [...headers, { name: "", value: "" }];
}
