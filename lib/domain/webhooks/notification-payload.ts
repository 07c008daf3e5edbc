import type { EventData } from "../../contract/notifications";
import type { RegistrationEvent } from "../../contract/webhooks";
import { NOTIFICATION_EVENT_OF } from "../../contract/webhooks";
import type { EventType } from "../../contract/events";

/**
 * Which events notify which registrations, and the EventData each one
 * carries (docs/contract.md §10). Pure functions.
 */

/** The registration event an event type notifies; `accepted` notifies nothing. */
export const REGISTRATION_EVENT_FOR: Partial<Record<EventType, RegistrationEvent>> = {
  delivered: "delivery",
  failed: "bounce",
  rejected: "bounce",
  opened: "open",
  clicked: "click",
  unsubscribed: "unsubscribe",
  complained: "complaint",
};

/** The stored `webhooks.event` values that an event type matches: both vocabularies. */
export function webhookEventsMatching(type: EventType): string[] {
  const reg = REGISTRATION_EVENT_FOR[type];
  return reg ? [reg, NOTIFICATION_EVENT_OF[reg]] : [];
}

/** What the payload is built from: the event as logged plus its message's sender domain. */
export interface PayloadSource {
  type: EventType;
  messageId: string;
  recipient: string;
  reason?: string;
  ip?: string | null;
  url?: string | null;
  details?: Record<string, unknown> | null;
  domain: string;
}

const str = (v: unknown): string => (v === undefined || v === null ? "" : String(v));

/** The EventData of a notification, or undefined for an event type that notifies nothing. */
export function buildEventData(e: PayloadSource): EventData | undefined {
  const base = { Domain: e.domain, MessageID: e.messageId };
  switch (e.type) {
    case "delivered":
      return { Event: "delivered", ...base, To: e.recipient };
    case "failed":
    case "rejected": {
      const d = e.details ?? {};
      const smtpCode = d.smtpCode ?? d.code;
      const diagnostic = str(d.diagnostic) || str(e.reason);
      return {
        Event: "bounced",
        EventType: e.type,
        ...base,
        BouncedEmailAddress: {
          EmailAddress: e.recipient,
          Status: str(d.enhancedCode ?? d.status),
          // DSN form (RFC 3464 Diagnostic-Code) when the answer came from an SMTP server.
          DiagnosticCode: smtpCode !== undefined && smtpCode !== null && !/^smtp;/i.test(diagnostic) ? `smtp; ${diagnostic}` : diagnostic,
        },
        Reason: str(e.reason),
        Code: str(smtpCode),
      };
    }
    case "opened":
      return { Event: "opened", ...base, To: e.recipient, IPAddress: str(e.ip) };
    case "clicked":
      return { Event: "clicked", ...base, To: e.recipient, IPAddress: str(e.ip), Url: str(e.url) };
    case "unsubscribed":
      return { Event: "unsubscribed", ...base, To: e.recipient, IPAddress: str(e.ip) };
    case "complained":
      return { Event: "complained", ...base, To: e.recipient };
    default:
      return undefined;
  }
}

/** A sample EventData for a registration (the dashboard's "send test notification"). */
export function sampleEventData(registration: RegistrationEvent, domain: string): EventData {
  const type = (Object.entries(REGISTRATION_EVENT_FOR).find(([, r]) => r === registration)?.[0] ?? "delivered") as EventType;
  return buildEventData({
    type,
    messageId: "00000000-0000-4000-8000-000000000000",
    recipient: "recipient@example.net",
    reason: type === "failed" ? "550 5.1.1 The email account that you tried to reach does not exist" : "",
    ip: "192.0.2.1",
    url: "https://example.com/",
    details: type === "failed" ? { smtpCode: 550, enhancedCode: "5.1.1", diagnostic: "550 5.1.1 The email account that you tried to reach does not exist" } : null,
    domain,
  })!;
}
