import { parseReplyTag } from "../../tracking/verp";

/**
 * The Mailroom message a per-message reply address names (docs/adr/0804):
 * the MailboxHash the route reported (already split from a parsed, bounded
 * address) read as a signed reply tag. Undefined when it is no reply tag or
 * its signature does not verify: the MailboxHash is then just a tag.
 */
export function messageOfReplyTag(secret: string, mailboxHash: string): string | undefined {
  return mailboxHash ? parseReplyTag(secret, mailboxHash) : undefined;
}
