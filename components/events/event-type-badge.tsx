import type { EventType } from "@/lib/contract/events";
import { Badge, type BadgeTone } from "@/components/ui/badge";

export const EVENT_TONES: Record<EventType, BadgeTone> = {
  accepted: "neutral",
  delivered: "success",
  opened: "info",
  clicked: "accent",
  unsubscribed: "warning",
  complained: "danger",
  failed: "danger",
  rejected: "danger",
};

export function EventTypeBadge({ type }: { type: EventType }) {
  return <Badge tone={EVENT_TONES[type]}>{type}</Badge>;
}
