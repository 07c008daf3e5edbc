/**
 * What an SMTP answer means for a recipient (pure). docs/contract.md
 * §8: 2xx → delivered; 5.7.x → rejected (policy); other 5xx →
 * failed; 4xx, timeouts, refused connections → deferred (retried).
 */

export type Outcome = "delivered" | "rejected" | "failed" | "deferred";

export interface SmtpAnswer {
  /** Reply code of the server (250, 451, 550...), absent when none came. */
  responseCode?: number;
  /** Full reply text ("550 5.1.1 <bounce@x> No such user") or error message. */
  response?: string;
  /** Node / nodemailer error code (ECONNREFUSED, ETIMEDOUT, EDNS, ENOTFOUND...). */
  errorCode?: string;
  /** RFC 3463 status of a failure of our own when no reply came (4.4.2: the connection timed out mid-transaction). */
  enhancedCode?: string;
  /**
   * Deferred for the destination until then (ms), not for the recipient: held or throttled before any
   * connection (destinations/gate.ts), or, when `tried`, refused by a suspension reply (a block list).
   */
  heldUntil?: number;
  tried?: boolean;
}

export interface Classification {
  outcome: Outcome;
  smtpCode: number | null;
  /** RFC 3463 enhanced status (5.1.1), from the reply or implied by the code. */
  enhancedCode: string;
  /** The server's reply (or our description of what went wrong). */
  diagnostic: string;
  /** hard: permanent for this address; soft: temporary; policy: refused on policy. */
  bounceType: "hard" | "soft" | "policy" | null;
  /** Hard bounces with 5.1.x add the address to the suppression list. */
  suppress: boolean;
  /**
   * A deferral of a copy that never got the peer's decision (no slot, or a probe given up:
   * lib/delivery/untried-retry.ts): tried again within seconds, spending no delivery attempt.
   */
  untried?: boolean;
  /** Deferred for its destination (a hold, a throttle, a suspension): the next try then, capped by the maximum age (ms). */
  heldUntil?: number;
}

const ENHANCED = /(?:^|[\s-])([245])\.(\d{1,3})\.(\d{1,3})(?=$|[\s,;:.)])/;

export function enhancedCodeOf(text: string | undefined): string | undefined {
  const m = ENHANCED.exec(text ?? "");
  return m ? `${m[1]}.${m[2]}.${m[3]}` : undefined;
}

/** Strips nodemailer's prefixes ("Can't send mail - all recipients were rejected: ") from a reply. */
export function cleanReply(text: string | undefined): string {
  const t = (text ?? "").trim();
  const m = /(?:^|:\s)([2-5]\d\d[\s-].*)$/s.exec(t);
  return (m ? m[1]! : t).replace(/\s+/g, " ").trim();
}

export function classifySmtpAnswer(answer: SmtpAnswer): Classification {
  if (answer.heldUntil !== undefined) {
    // The destination's state, not the recipient's: a held or throttled copy spends no attempt.
    // Our own wording (gate.ts), which may end with the reply that caused it: not cut to that reply.
    const diagnostic = ((answer.tried ? cleanReply(answer.response) : (answer.response ?? "").replace(/\s+/g, " ").trim()) || "Held").slice(0, 500);
    const enhancedCode = answer.tried ? "4.7.1" : "4.4.5";
    return { outcome: "deferred", smtpCode: answer.tried ? (answer.responseCode ?? null) : null, enhancedCode, diagnostic, bounceType: "soft", suppress: false, heldUntil: answer.heldUntil, untried: !answer.tried };
  }
  const code = answer.responseCode && answer.responseCode >= 200 && answer.responseCode < 600 ? answer.responseCode : null;
  const diagnostic = cleanReply(answer.response) || answer.errorCode || "no answer";
  const enhanced = enhancedCodeOf(diagnostic);
  if (code !== null && code < 400) {
    return { outcome: "delivered", smtpCode: code, enhancedCode: enhanced ?? "2.0.0", diagnostic, bounceType: null, suppress: false };
  }
  if (code !== null && code >= 500) {
    const enh = enhanced && enhanced.startsWith("5.") ? enhanced : "5.0.0";
    if (enh.startsWith("5.7.")) {
      return { outcome: "rejected", smtpCode: code, enhancedCode: enh, diagnostic, bounceType: "policy", suppress: false };
    }
    return { outcome: "failed", smtpCode: code, enhancedCode: enh, diagnostic, bounceType: "hard", suppress: enh.startsWith("5.1.") };
  }
  if (code === null && (answer.errorCode === "ENOTFOUND" || answer.errorCode === "ENODOMAIN")) {
    // The recipient domain does not exist (NXDOMAIN): no retry will help.
    return { outcome: "failed", smtpCode: null, enhancedCode: "5.1.2", diagnostic, bounceType: "hard", suppress: false };
  }
  if (code === null && answer.errorCode === "EPRIVATEMX") {
    // Every mail server of the domain is on a refused address (transports.ts): not retried,
    // the operator's setting decides. 5.4.4: unable to route.
    return { outcome: "failed", smtpCode: null, enhancedCode: "5.4.4", diagnostic, bounceType: "hard", suppress: false };
  }
  const own = code === null && answer.enhancedCode?.startsWith("4.") ? answer.enhancedCode : undefined;
  const enh = enhanced && enhanced.startsWith("4.") ? enhanced : (own ?? "4.4.1");
  return { outcome: "deferred", smtpCode: code, enhancedCode: enh, diagnostic, bounceType: "soft", suppress: false };
}

/**
 * An exception inside delivery (not an SMTP outcome): a temporary failure,
 * retried on the delivery schedule and failed when that runs out. The
 * diagnostic names the class of the error (and its Node code), never its
 * message or stack: those may carry message content and stay in the log.
 */
export function internalErrorClassification(err: unknown): Classification {
  let kind: string = typeof err;
  let code = "";
  if (err instanceof Error) {
    kind = err.constructor?.name || err.name || "Error";
    const c = (err as { code?: unknown }).code;
    if (typeof c === "string" && /^[A-Z][A-Z0-9_]{1,63}$/.test(c)) code = ` (${c})`;
  }
  return {
    outcome: "deferred",
    smtpCode: null,
    enhancedCode: "4.3.0",
    diagnostic: `Internal error: ${kind}${code}`,
    bounceType: "soft",
    suppress: false,
  };
}
