import type { SmtpAnswer } from "../classify";

/**
 * What a remote server's reply says about the destination as a whole, apart
 * from what it means for the recipient (pure). A rate or connection complaint
 * (`421 4.7.28 … unusual rate`, Yahoo's `TS01`–`TS03`, Outlook's "exceeded the
 * maximum number of connections") throttles it; a suspension pattern (Yahoo's
 * `TSS04`, a block-list `550 5.7.1 … Spamhaus`) suspends it (docs/adr/0324).
 * Only the first MAX_TEXT characters are looked at, with plain substring
 * checks: the reply is a remote server's text, hostile and unbounded.
 */

export type ReplySignal = "throttle" | "suspend";

const MAX_TEXT = 512;

/** Block-list wording of `550 5.7.1` (and of `554`): our address is listed, not the recipient refused. */
const BLOCK_LIST_WORDS = ["spamhaus", "blocklist", "block list", "blacklist", "black list", "blocked using", "listed at", "listed on", "listed in", "rbl", "barracuda", "spamcop", "sorbs"];
/** Rate or connection wording of a temporary refusal. */
const RATE_WORDS = ["rate", "too many", "exceeded the maximum number of connections", "too fast", "try again later", "temporarily deferred", "throttl"];

export function replySignalOf(answer: Pick<SmtpAnswer, "responseCode" | "response">): ReplySignal | undefined {
  const code = answer.responseCode;
  if (code === undefined || code < 400) return undefined;
  const text = (answer.response ?? "").slice(0, MAX_TEXT).toLowerCase();
  // Yahoo: TSS04 is "messages from your IP temporarily deferred due to user complaints": a suspension.
  if (text.includes("tss04")) return "suspend";
  if (code >= 500) {
    if ((code === 550 || code === 554) && (text.includes("5.7.1") || text.includes("5.7.0") || text.includes("5.7.606")) && BLOCK_LIST_WORDS.some((w) => text.includes(w))) {
      return "suspend";
    }
    return undefined;
  }
  // 4xx from here on.
  if (text.includes("4.7.28")) return "throttle"; // Gmail: unusual rate of mail from your IP
  if (text.includes("ts01") || text.includes("ts02") || text.includes("ts03")) return "throttle"; // Yahoo's deferrals
  if (text.includes("exceeded the maximum number of connections")) return "throttle"; // Outlook
  if ((text.includes("4.7.0") || text.includes("4.7.1") || code === 421 || code === 450 || code === 451) && RATE_WORDS.some((w) => text.includes(w))) {
    return "throttle";
  }
  return undefined;
}
