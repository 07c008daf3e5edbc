import { redirectToMessage } from "@/lib/dashboard/legacy";

/** The URL before the account was in it: the message in the account that holds it (ADR 0510). */
export default async function Legacy({ params }: { params: Promise<{ messageId: string }> }) {
  const { messageId } = await params;
  let id = messageId;
  try {
    id = decodeURIComponent(messageId);
  } catch {
    // a stray %: use it as it is
  }
  return redirectToMessage(id);
}
