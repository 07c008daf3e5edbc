import type { BadgeTone } from "@/components/ui/badge";
import { NEVER_CALLED_AT } from "@/lib/contract/webhooks";

/** How a webhook's last response reads on the page: its text and the colour of its class. */
export function describeLastResponse(code: string, at: string): { text: string; tone: BadgeTone; neverCalled: boolean } {
  const n = Number(code);
  const neverCalled = at === NEVER_CALLED_AT || at.startsWith("1899-") || (n === 0 && !at);
  if (neverCalled) return { text: "never called", tone: "neutral", neverCalled: true };
  if (n === 0) return { text: "no answer", tone: "danger", neverCalled: false };
  if (n >= 200 && n < 300) return { text: code, tone: "success", neverCalled: false };
  if (n >= 300 && n < 400) return { text: code, tone: "info", neverCalled: false };
  if (n >= 400 && n < 500) return { text: code, tone: "warning", neverCalled: false };
  return { text: code, tone: "danger", neverCalled: false };
}
