import type { ContentAddress, MessageContent } from "../domain/sending/email-request/message-content";
import { parseAddress, pickRoute } from "../domain/inbound/route-match";
import { REPLY_TAG_LENGTH, replyTag } from "../tracking/verp";

/**
 * Per-message reply addresses (docs/adr/0804, docs/contract.md §13.6): when
 * a message's Reply-To (or, with none, its From) is an address one of the
 * account's own inbound routes receives, and it has no `+tag` yet, the copies
 * carry `local+r-<token>@domain` instead, so that a reply whose client drops
 * In-Reply-To still names the message. The route still receives it (`+tag`
 * routing), and the token is the same for every copy of the message.
 */

/** RFC 5321's limit on a local part: a longer reply address is not made (the address stays as it was). */
const MAX_LOCAL_PART = 64;

function tagged(address: ContentAddress, routes: readonly { match: string }[], tag: string): ContentAddress | undefined {
  const parsed = parseAddress(address.email);
  if (!parsed || parsed.tag || parsed.local !== parsed.base) return undefined;
  if (!pickRoute(routes, address.email)) return undefined;
  const at = address.email.lastIndexOf("@");
  const local = address.email.slice(0, at);
  if (local.length + 1 + REPLY_TAG_LENGTH > MAX_LOCAL_PART) return undefined;
  return { name: address.name, email: `${local}+${tag}${address.email.slice(at)}` };
}

/**
 * The content with its reply addresses rewritten, or the same object when
 * nothing is routed. `routes`: the matches of the account's inbound routes.
 * A raw MIME submission is sent as its own bytes and is left as it is.
 */
export function withReplyAddress(content: MessageContent, routes: readonly { match: string }[], secret: string, messageId: string): MessageContent {
  if (routes.length === 0 || content.mime !== undefined) return content;
  const tag = replyTag(secret, messageId);
  if (!tag) return content;
  if (content.replyTo.length > 0) {
    let changed = false;
    const replyTo = content.replyTo.map((a) => {
      const t = tagged(a, routes, tag);
      if (t) changed = true;
      return t ?? a;
    });
    return changed ? { ...content, replyTo } : content;
  }
  const from = tagged(content.from, routes, tag);
  return from ? { ...content, replyTo: [from] } : content;
}
