import { redirectToMessage, type SearchParams } from "@/lib/dashboard/legacy";

/** Target of the header's MessageID box (`/messages?id=…`): the message in whichever of the user's accounts holds it. */
export default async function MessageLookup({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const raw = (await searchParams).id;
  return redirectToMessage((Array.isArray(raw) ? raw[0] : raw) ?? "");
}
