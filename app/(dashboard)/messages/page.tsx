import { redirect } from "next/navigation";
import { requireRole } from "@/lib/auth/require-role";

/** Target of the header's MessageID box (`/messages?id=…`): on to the message's page. */
export default async function MessageLookup({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const raw = Array.isArray(params.id) ? params.id[0] : params.id;
  // Also accepts the RFC 5322 Message-ID header as a mail client shows it: <MessageID@domain>.
  const id = (raw ?? "")
    .trim()
    .replace(/^<|>$/g, "")
    .replace(/^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^\s@]+$/i, "$1");
  await requireRole("messages", id ? `/messages/${encodeURIComponent(id)}` : "/events");
  redirect(id ? `/messages/${encodeURIComponent(id)}` : "/events");
}
