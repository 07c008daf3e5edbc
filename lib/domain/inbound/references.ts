/**
 * The Message-IDs a reply names in `In-Reply-To` and `References`, split
 * into id and domain (Mailroom's own are `<MessageID@from-domain>`,
 * docs/contract.md §6). Linear: split on whitespace and angle brackets,
 * bounded in characters and in the number of ids kept.
 */

const MAX_HEADER_CHARS = 16_384;
const MAX_IDS = 100;
const UUID_CHARS = new Set("0123456789abcdef-");

function isUuid(text: string): boolean {
  if (text.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const dash = i === 8 || i === 13 || i === 18 || i === 23;
    if (dash ? text[i] !== "-" : !UUID_CHARS.has(text[i]!) || text[i] === "-") return false;
  }
  return true;
}

function idsOf(value: string): string[] {
  return value
    .slice(0, MAX_HEADER_CHARS)
    .split(/[\s<>,]+/)
    .filter((t) => t.length > 0);
}

/** Candidate Mailroom message ids, In-Reply-To's first then References' newest first; only uuid-shaped local parts. */
export function mailroomReferences(inReplyTo: string, references: string): { id: string; domain: string }[] {
  const tokens = [...idsOf(inReplyTo), ...idsOf(references).reverse()];
  const out: { id: string; domain: string }[] = [];
  const seen = new Set<string>();
  for (const token of tokens) {
    if (out.length >= MAX_IDS) break;
    const at = token.lastIndexOf("@");
    if (at <= 0) continue;
    const id = token.slice(0, at).toLowerCase();
    const domain = token.slice(at + 1).toLowerCase();
    if (!isUuid(id) || !domain || seen.has(id)) continue;
    seen.add(id);
    out.push({ id, domain });
  }
  return out;
}
