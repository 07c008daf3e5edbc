import type { CheckStatus, DomainJson, HealthCheckName } from "@/lib/contract/domains";
import { formatRate } from "./rate-series";

/**
 * The readiness verdict for the 2024–25 bulk-sender rules of Gmail, Yahoo
 * and Microsoft (docs/adr/0519): authenticated mail (SPF, DKIM, DMARC with
 * From aligned), one-click unsubscribe (RFC 8058), a spam rate below 0.3%
 * (ideally 0.1%), forward-confirmed reverse DNS of the sending addresses,
 * and TLS in transit. Pure: the domains' last health checks, the range's
 * complaint counts and the instance's facts in, one line per rule out.
 */

export type ReadinessId = "spf" | "dkim" | "dmarc" | "unsubscribe" | "spam-rate" | "ptr" | "tls";

export interface ReadinessLine {
  id: ReadinessId;
  rule: string;
  status: CheckStatus;
  why: string;
}

export interface ReadinessInput {
  domains: Pick<DomainJson, "Domain" | "Status" | "Checks">[];
  /** Complaints of delivered recipients over the page's range. */
  complaints: { complained: number; delivered: number };
  /** How outbound mail leaves the instance (MAILROOM_DELIVERY) and, for a relay, its URL's scheme. */
  transport: { mode: "sandbox" | "relay" | "mx"; relayScheme?: string };
  /** Every message carries List-Unsubscribe and List-Unsubscribe-Post (lib/delivery/build-message.ts). */
  oneClickUnsubscribe: boolean;
  /** MAILROOM_PUBLIC_URL: the one-click link's origin (RFC 8058 wants HTTPS). */
  publicUrl: string;
}

/** Gmail's published ceiling and its recommended target for the spam rate (Postmaster Tools). */
export const SPAM_RATE_CEILING = 0.003;
export const SPAM_RATE_TARGET = 0.001;

const RANK: Record<CheckStatus, number> = { pass: 0, warn: 1, fail: 2 };
const worst = (statuses: CheckStatus[]): CheckStatus => statuses.reduce<CheckStatus>((w, s) => (RANK[s] > RANK[w] ? s : w), "pass");

/**
 * One rule judged from the named health checks of every verified domain: the
 * worst of them, a domain never checked a warning; the why names each domain
 * that is not passing, with what its check found.
 */
function fromChecks(id: ReadinessId, rule: string, names: HealthCheckName[], domains: ReadinessInput["domains"], passWhy: string): ReadinessLine {
  const verified = domains.filter((d) => d.Status === "verified");
  if (verified.length === 0) return { id, rule, status: "fail", why: "No verified sender domain: add one and publish its records (Settings → Domains)." };
  const problems: string[] = [];
  const statuses: CheckStatus[] = [];
  for (const d of verified) {
    const found = names.map((n) => d.Checks.find((c) => c.Check === n));
    if (found.some((c) => c === undefined)) {
      statuses.push("warn");
      problems.push(`${d.Domain}: ${d.Checks.length === 0 ? "not checked yet" : `no ${names.join(" or ")} check in its last checks`}`);
      continue;
    }
    for (const c of found as NonNullable<(typeof found)[number]>[]) {
      statuses.push(c.Status);
      if (c.Status !== "pass") problems.push(`${d.Domain}: ${c.Detail}`);
    }
  }
  const status = worst(statuses);
  return { id, rule, status, why: status === "pass" ? passWhy : problems.join(" · ") };
}

function spamRate({ complained, delivered }: ReadinessInput["complaints"]): ReadinessLine {
  const rule = "Spam rate below 0.3% (ideally below 0.1%)";
  if (delivered === 0) return { id: "spam-rate", rule, status: "warn", why: "Nothing delivered in the last 30 days: no rate to judge yet." };
  const rate = complained / delivered;
  const measured = `${formatRate(rate)} (${complained.toLocaleString("en-US")} complaints of ${delivered.toLocaleString("en-US")} delivered, last 30 days)`;
  if (rate >= SPAM_RATE_CEILING) return { id: "spam-rate", rule, status: "fail", why: `${measured}: at or above Gmail's 0.3% ceiling, where bulk mail is rejected or sent to spam.` };
  if (rate >= SPAM_RATE_TARGET) return { id: "spam-rate", rule, status: "warn", why: `${measured}: under the 0.3% ceiling but above the 0.1% the providers ask for.` };
  return { id: "spam-rate", rule, status: "pass", why: `${measured}: below 0.1%.` };
}

function unsubscribe(input: ReadinessInput): ReadinessLine {
  const rule = "One-click unsubscribe (RFC 8058)";
  if (!input.oneClickUnsubscribe) return { id: "unsubscribe", rule, status: "fail", why: "Messages carry no List-Unsubscribe-Post header." };
  if (new URL(input.publicUrl).protocol !== "https:") {
    return {
      id: "unsubscribe",
      rule,
      status: "warn",
      why: `Every message has List-Unsubscribe-Post: List-Unsubscribe=One-Click, but its link is on ${new URL(input.publicUrl).origin}; RFC 8058 needs an HTTPS link: serve the instance over HTTPS (MAILROOM_PUBLIC_URL).`,
    };
  }
  return { id: "unsubscribe", rule, status: "pass", why: "Every message has List-Unsubscribe (HTTPS and mailto) and List-Unsubscribe-Post: List-Unsubscribe=One-Click; a POST to the link unsubscribes at once." };
}

function tls({ mode, relayScheme }: ReadinessInput["transport"]): ReadinessLine {
  const rule = "TLS for the connection to the receiver";
  if (mode === "mx") return { id: "tls", rule, status: "pass", why: "Direct delivery uses STARTTLS whenever the receiving MX offers it, as Gmail's, Yahoo's and Microsoft's all do." };
  if (mode === "relay") {
    return relayScheme === "smtps:"
      ? { id: "tls", rule, status: "pass", why: "Mail goes to the relay over implicit TLS (smtps://); the relay's own delivery must use TLS too." }
      : { id: "tls", rule, status: "warn", why: "Mail goes to the relay with STARTTLS only when the relay offers it (smtp://): use smtps:// or a relay that offers STARTTLS, and check that it delivers over TLS." };
  }
  return { id: "tls", rule, status: "warn", why: "Sandbox delivery: no mail leaves this machine. In mx or relay mode (MAILROOM_DELIVERY) this is checked again." };
}

export function readinessVerdict(input: ReadinessInput): { status: CheckStatus; lines: ReadinessLine[] } {
  const lines: ReadinessLine[] = [
    fromChecks("spf", "SPF authorizes the sending addresses", ["spf"], input.domains, "Every verified domain's SPF record authorizes this instance's sending addresses."),
    fromChecks("dkim", "DKIM signature with a published key", ["dkim"], input.domains, "Every verified domain publishes the DKIM key that signs its mail."),
    fromChecks(
      "dmarc",
      "DMARC record, with From aligned to SPF or DKIM",
      ["dmarc", "alignment"],
      input.domains,
      "Every verified domain has a DMARC record, and its From aligns with the DKIM d= and the Return-Path domain.",
    ),
    unsubscribe(input),
    spamRate(input.complaints),
    fromChecks("ptr", "Reverse DNS (PTR) of the sending addresses", ["ptr"], input.domains, "Each sending address's PTR names the EHLO name, which resolves back to it."),
    tls(input.transport),
  ];
  return { status: worst(lines.map((l) => l.status)), lines };
}
