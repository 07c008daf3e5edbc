import type { TlsVerdictRecord } from "@/lib/contract/events";

/**
 * One line for a delivered copy's TLS (docs/contract.md §7.7) on the message
 * timeline: the policy, what was negotiated, and whether the certificate
 * passed the policy's check, for a support agent asked "was it encrypted?".
 */
const POLICY: Record<TlsVerdictRecord["Policy"], string> = {
  none: "No TLS: sent in clear (the server offered no STARTTLS, and no policy required it)",
  opportunistic: "Opportunistic TLS",
  "mta-sts": "MTA-STS",
  dane: "DANE",
};

export function describeTls(tls: TlsVerdictRecord): { text: string; warning: boolean } {
  if (tls.Policy === "none") return { text: POLICY.none, warning: false };
  const policy = tls.Mode ? `${POLICY[tls.Policy]} (${tls.Mode})` : POLICY[tls.Policy];
  const negotiated = [tls.Version, tls.Cipher].filter(Boolean).join(" ") || "not encrypted";
  const check =
    tls.Policy === "opportunistic" ? (tls.Verified ? "certificate valid" : "certificate not checked") : tls.Verified ? "certificate verified" : `check failed: ${tls.Failure ?? "unknown"}`;
  return { text: `${policy} · ${negotiated} · ${check}`, warning: tls.Policy !== "opportunistic" && !tls.Verified };
}
